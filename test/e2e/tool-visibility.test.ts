/**
 * docs/contract.md#resolution (a tool the caller cannot see answers like one that does not exist)
 * with level 1 of docs/contract.md#capabilities: a caller sees only the providers its channels reach, and only the tools
 * they offer — on REST (JSON and MessagePack), Connect `ListTools` and Workers RPC `listTools`;
 * and a call to a tool it cannot reach is answered, on every face, with the very bytes of the
 * answer to a call to a tool that does not exist.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { decode, encode } from "@msgpack/msgpack";
import { beforeAll, describe, expect, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { asAdmin, baseUrl, bearer, call, CALLER_AUTH, ROOMY } from "./http.ts";
import { modern } from "./mcp.ts";
import { provided } from "./stack.ts";

const callerUrl = provided("callerUrl");
let narrow: string;
/** What the community provider offers, as a caller that reaches every provider sees it. */
let communityTools: string[];

beforeAll(async () => {
  const created = await asAdmin("POST", "/v1/admin/keys", {
    tenant: `visibility-${crypto.randomUUID()}`,
    agent: "dev-agent",
    channels: ["community"],
  });
  expect(created.status).toBe(201);
  narrow = created.body.key;
  const everything = (await call("GET", "/v1/tools")).body.tools as { name: string; versions: string[] }[];
  const offered = await Promise.all(
    everything.map(async (t) => ({
      name: t.name,
      providers: (
        (await call("GET", `/v1/tools/${t.name}`)).body.versions as { providers: { provider: string }[] }[]
      ).flatMap((v) => v.providers.map((p) => p.provider)),
    })),
  );
  communityTools = offered
    .filter((t) => t.providers.includes("community"))
    .map((t) => t.name)
    .sort();
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
    for (const v of res.body.versions)
      expect(v.providers.map((p: { provider: string }) => p.provider)).toEqual(["community"]);
  });

  it("REST: a tool it cannot reach answers exactly like one that does not exist", async () => {
    const [hidden, missing] = [await asNarrow("/v1/tools/math.evaluate"), await asNarrow("/v1/tools/no.such.tool")];
    expect([hidden.status, missing.status]).toEqual([404, 404]);
    const shape = (body: any, name: string) => ({
      ...body.error,
      message: body.error.message.replace(name, "<name>"),
      details: { ...body.error.details, tool: "<name>" },
    });
    expect(shape(hidden.body, "math.evaluate")).toEqual(shape(missing.body, "no.such.tool"));
    expect(hidden.body.error.code).toBe("tool_not_found");
  });

  it("REST in MessagePack: the same list", async () => {
    const res = await fetch(`${baseUrl}/v1/tools`, { headers: { accept: "application/msgpack", ...bearer(narrow) } });
    const body = decode(new Uint8Array(await res.arrayBuffer())) as { tools: { name: string }[] };
    expect(body.tools.map((t) => t.name).sort()).toEqual(communityTools);
  });

  it("Connect: ListTools lists the same tools", async () => {
    const client = createClient(
      ToolRuntimeService,
      createConnectTransport({
        baseUrl,
        interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${narrow}`), next(req))],
      }),
    );
    expect((await client.listTools({})).tools.map((t) => t.name).sort()).toEqual(communityTools);
  });

  it("Workers RPC: listTools for a binding whose props reach only the community provider", async () => {
    const [narrowRpc, wideRpc] = [
      await (await fetch(`${callerUrl}/tools?as=community`)).json(),
      await (await fetch(`${callerUrl}/tools`)).json(),
    ] as any[];
    expect(narrowRpc.value.map((t: { name: string }) => t.name).sort()).toEqual(communityTools);
    expect(wideRpc.value.length).toBeGreaterThan(communityTools.length);
  });
});

/**
 * A call to math.evaluate (offered by no provider the narrow caller reaches) and to a tool that
 * does not exist, whose name has the same length so that even MessagePack's length prefixes
 * match: each face's two answers must be the same bytes once the names are swapped.
 */
describe("a call to a tool it cannot reach answers exactly like a call to one that does not exist", () => {
  const HIDDEN = "math.evaluate";
  const missing = () =>
    `no.${crypto
      .randomUUID()
      .replace(/-/g, "")
      .slice(0, HIDDEN.length - 3)}`;

  /** Both answers, as text with the tool's name made one placeholder; ids (none are expected) would differ and fail. */
  async function both(answer: (tool: string) => Promise<{ status: number; bytes: Uint8Array }>) {
    const name = missing();
    expect(name).toHaveLength(HIDDEN.length);
    const [hidden, absent] = [await answer(HIDDEN), await answer(name)];
    const text = (a: { bytes: Uint8Array }, tool: string) =>
      Buffer.from(a.bytes).toString("latin1").replaceAll(tool, "<tool>");
    return {
      hidden: { status: hidden.status, text: text(hidden, HIDDEN) },
      absent: { status: absent.status, text: text(absent, name) },
    };
  }
  const bytesOf = async (res: Response) => ({ status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) });

  it("REST in JSON: 404 tool_not_found, the same body", async () => {
    const { hidden, absent } = await both(async (tool) =>
      bytesOf(
        await fetch(`${baseUrl}/v1/executions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...bearer(narrow) },
          body: JSON.stringify({ tool, input: {}, limits: ROOMY }),
        }),
      ),
    );
    expect(hidden).toEqual(absent);
    expect(hidden.status).toBe(404);
    expect(JSON.parse(hidden.text).error).toMatchObject({ code: "tool_not_found", details: { tool: "<tool>" } });
  });

  it("REST in JSON: naming a provider it cannot reach answers like naming one that does not exist", async () => {
    const named = async (provider: string) =>
      bytesOf(
        await fetch(`${baseUrl}/v1/executions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...bearer(narrow) },
          body: JSON.stringify({ tool: "text.stats", provider, input: { text: "a" }, limits: ROOMY }),
        }),
      );
    const [unreachable, absent] = [await named("std"), await named("zzz")];
    const text = (a: { bytes: Uint8Array }, provider: string) =>
      Buffer.from(a.bytes)
        .toString("utf8")
        .replaceAll(`"${provider}"`, '"<provider>"')
        .replaceAll(`provider ${provider} `, "provider <provider> ");
    expect([unreachable.status, text(unreachable, "std")]).toEqual([absent.status, text(absent, "zzz")]);
    expect(unreachable.status).toBe(404);
    // Only the providers it reaches are named.
    expect(JSON.parse(text(unreachable, "std")).error.details.providers).toEqual(["community"]);
  });

  it("REST in MessagePack: the same bytes", async () => {
    const { hidden, absent } = await both(async (tool) =>
      bytesOf(
        await fetch(`${baseUrl}/v1/executions`, {
          method: "POST",
          headers: { "content-type": "application/msgpack", accept: "application/msgpack", ...bearer(narrow) },
          body: encode({ tool, input: {}, limits: ROOMY }) as BodyInit,
        }),
      ),
    );
    expect(hidden).toEqual(absent);
    expect((decode(Buffer.from(hidden.text.replaceAll("<tool>", HIDDEN), "latin1")) as any).error.code).toBe(
      "tool_not_found",
    );
  });

  it("Connect: the same bytes (not_found)", async () => {
    const { hidden, absent } = await both(async (tool) =>
      bytesOf(
        await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`, {
          method: "POST",
          headers: { "content-type": "application/json", ...bearer(narrow) },
          body: JSON.stringify({ tool, limits: { timeoutMs: 20_000 } }),
        }),
      ),
    );
    expect(hidden).toEqual(absent);
    expect(JSON.parse(hidden.text).code).toBe("not_found");
  });

  it("Workers RPC: the same result", async () => {
    const { hidden, absent } = await both(async (tool) =>
      bytesOf(
        await fetch(
          `${callerUrl}/call?as=community&tool=${tool}&options=${encodeURIComponent(JSON.stringify({ limits: ROOMY }))}`,
          { headers: CALLER_AUTH },
        ),
      ),
    );
    expect(hidden).toEqual(absent);
    expect(JSON.parse(hidden.text)).toMatchObject({ ok: false, error: { code: "tool_not_found" } });
  });

  it("MCP tools/call: the same JSON-RPC error", async () => {
    const { hidden, absent } = await both(async (tool) => {
      const answer = await modern("tools/call", { name: tool, arguments: {} }, { key: narrow, id: 7 });
      return { status: answer.status, bytes: new TextEncoder().encode(JSON.stringify(answer.body)) };
    });
    expect(hidden).toEqual(absent);
    expect(JSON.parse(hidden.text).error).toMatchObject({ code: -32602 });
  });
});
