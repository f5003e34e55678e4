/**
 * AIOS §5.2 step 4 ("ToolNotFound: no tool with this name exists, or the caller can't see it")
 * with §5.3 level 1: a caller sees only the providers its channels reach, and only the tools
 * they offer — on REST (JSON and MessagePack), Connect `ListTools` and Workers RPC `listTools`.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { decode } from "@msgpack/msgpack";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { asAdmin, baseUrl, bearer, call } from "./http.ts";

const callerUrl = inject("callerUrl");
let narrow: string;
/** What the community provider offers, as a caller that reaches every provider sees it. */
let communityTools: string[];

beforeAll(async () => {
  const created = await asAdmin("POST", "/v1/admin/keys", { tenant: `visibility-${crypto.randomUUID()}`, agent: "dev-agent", channels: ["community"] });
  expect(created.status).toBe(201);
  narrow = created.body.key;
  const everything = (await call("GET", "/v1/tools")).body.tools as { name: string; versions: string[] }[];
  const offered = await Promise.all(
    everything.map(async (t) => ({ name: t.name, providers: ((await call("GET", `/v1/tools/${t.name}`)).body.versions as { providers: { provider: string }[] }[]).flatMap((v) => v.providers.map((p) => p.provider)) })),
  );
  communityTools = offered.filter((t) => t.providers.includes("community")).map((t) => t.name).sort();
  expect(communityTools).toContain("text.stats");
  expect(everything.length).toBeGreaterThan(communityTools.length);
});

const asNarrow = (path: string) => call("GET", path, undefined, bearer(narrow));

describe("a caller sees only what its channels reach", () => {
  it("REST: GET /v1/tools lists only the tools its providers offer, with only those providers", async () => {
    const res = await asNarrow("/v1/tools");
    expect(res.status).toBe(200);
    expect(res.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(communityTools);
    for (const t of res.body.tools) expect(t.providers).toEqual(["community"]);
  });

  it("REST: GET /v1/tools/{name} shows only the reachable providers", async () => {
    const res = await asNarrow("/v1/tools/text.stats");
    expect(res.status).toBe(200);
    for (const v of res.body.versions) expect(v.providers.map((p: { provider: string }) => p.provider)).toEqual(["community"]);
  });

  it("REST: a tool it cannot reach answers exactly like one that does not exist", async () => {
    const [hidden, missing] = [await asNarrow("/v1/tools/math.evaluate"), await asNarrow("/v1/tools/no.such.tool")];
    expect([hidden.status, missing.status]).toEqual([404, 404]);
    const shape = (body: any, name: string) => ({ ...body.error, message: body.error.message.replace(name, "<name>"), details: { ...body.error.details, tool: "<name>" } });
    expect(shape(hidden.body, "math.evaluate")).toEqual(shape(missing.body, "no.such.tool"));
    expect(hidden.body.error.code).toBe("tool_not_found");
  });

  it("REST in MessagePack: the same list", async () => {
    const res = await fetch(`${baseUrl}/v1/tools`, { headers: { accept: "application/msgpack", ...bearer(narrow) } });
    const body = decode(new Uint8Array(await res.arrayBuffer())) as { tools: { name: string }[] };
    expect(body.tools.map((t) => t.name).sort()).toEqual(communityTools);
  });

  it("Connect: ListTools lists the same tools", async () => {
    const client = createClient(ToolRuntimeService, createConnectTransport({ baseUrl, interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${narrow}`), next(req))] }));
    expect((await client.listTools({})).tools.map((t) => t.name).sort()).toEqual(communityTools);
  });

  it("Workers RPC: listTools for a binding whose props reach only the community provider", async () => {
    const [narrowRpc, wideRpc] = [await (await fetch(`${callerUrl}/tools?as=community`)).json(), await (await fetch(`${callerUrl}/tools`)).json()] as any[];
    expect(narrowRpc.value.map((t: { name: string }) => t.name).sort()).toEqual(communityTools);
    expect(wideRpc.value.length).toBeGreaterThan(communityTools.length);
  });
});
