/**
 * A call without `input` is a call with `{}` (src/pipeline/initiation.ts): it runs when the
 * tool's input schema takes an empty object, and is refused as `invalid_input` naming `input`
 * when it does not — on every face. A keyed call without input is the same request as one
 * with `{}`, so the second is a replay, not a conflict.
 */
import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { baseUrl, bearer, call, CALLER_AUTH, DEV_KEY, ROOMY } from "./http.ts";
import { modern } from "./mcp.ts";
import { provided } from "./stack.ts";

const callerUrl = provided("callerUrl");
/** lab.echo takes any object; math.evaluate needs `expression`. */
const TAKES_EMPTY = "lab.echo";
const NEEDS_FIELDS = "math.evaluate";

describe("input left out", () => {
  it("REST JSON: runs a tool whose schema takes {}, refuses one whose schema does not with invalid_input naming input", async () => {
    const ran = await call("POST", "/v1/executions", { tool: TAKES_EMPTY, limits: ROOMY });
    expect([ran.status, ran.body.status, ran.body.output]).toEqual([200, "succeeded", {}]);
    const refused = await call("POST", "/v1/executions", { tool: NEEDS_FIELDS, limits: ROOMY });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/^input /),
      details: { violations: [expect.objectContaining({ path: "/expression" })] },
    });
    // An async and a dry run take it the same way.
    const dry = await call("POST", "/v1/executions", { tool: TAKES_EMPTY, mode: "dry_run" });
    expect([dry.status, dry.body.schema]).toEqual([200, { valid: true, violations: [] }]);
  });

  it("REST MessagePack: the same", async () => {
    const send = async (body: unknown) => {
      const res = await fetch(`${baseUrl}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/msgpack", accept: "application/msgpack", ...bearer(DEV_KEY) },
        body: encode(body),
      });
      return { status: res.status, body: decode(new Uint8Array(await res.arrayBuffer())) as any };
    };
    const ran = await send({ tool: TAKES_EMPTY, limits: ROOMY });
    expect([ran.status, ran.body.output]).toEqual([200, {}]);
    const refused = await send({ tool: NEEDS_FIELDS, limits: ROOMY });
    expect([refused.status, refused.body.error.code]).toEqual([400, "invalid_input"]);
    expect(refused.body.error.message).toMatch(/^input /);
  });

  it("Connect: an Invoke without input is the same call", async () => {
    const invoke = async (body: unknown) => {
      const res = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    const ran = await invoke({ tool: TAKES_EMPTY, limits: { timeoutMs: 20_000 } });
    expect([ran.status, ran.body.status, ran.body.output]).toEqual([200, "succeeded", {}]);
    const refused = await invoke({ tool: NEEDS_FIELDS, limits: { timeoutMs: 20_000 } });
    expect([refused.status, refused.headers.get("trt-error-code")]).toEqual([400, "invalid_input"]);
    expect(refused.body.message).toMatch(/^input /);
  });

  it("RPC: invoke with no input argument is the same call", async () => {
    const viaRpc = async (tool: string) => {
      const q = new URLSearchParams({ tool, options: JSON.stringify({ limits: ROOMY }) });
      return (await (await fetch(`${callerUrl}/call?${q}`, { headers: CALLER_AUTH })).json()) as any;
    };
    expect(await viaRpc(TAKES_EMPTY)).toMatchObject({ ok: true, value: { status: "succeeded", output: {} } });
    const refused = await viaRpc(NEEDS_FIELDS);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "invalid_input", message: expect.stringMatching(/^input /) },
    });
  });

  it("MCP: tools/call without arguments is the same call", async () => {
    const ran = await modern("tools/call", { name: TAKES_EMPTY, _meta: { "io.tool-runtime/limits": ROOMY } });
    expect(ran.body.result).toMatchObject({ structuredContent: {} });
    expect(ran.body.result.isError).toBeUndefined();
    const refused = await modern("tools/call", { name: NEEDS_FIELDS, _meta: { "io.tool-runtime/limits": ROOMY } });
    expect(refused.body.error).toMatchObject({
      code: -32602,
      data: { error: { code: "invalid_input", message: expect.stringMatching(/^input /) } },
    });
  });

  it("treats a keyed call without input and one with {} as the same request: a replay, not a conflict", async () => {
    const idempotency_key = `input-default-${crypto.randomUUID()}`;
    const first = await call("POST", "/v1/executions", { tool: TAKES_EMPTY, idempotency_key, limits: ROOMY });
    expect(first.status).toBe(200);
    const again = await call("POST", "/v1/executions", {
      tool: TAKES_EMPTY,
      input: {},
      idempotency_key,
      limits: ROOMY,
    });
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.execution_id]).toEqual([
      200,
      "true",
      first.body.execution_id,
    ]);
    const other = await call("POST", "/v1/executions", {
      tool: TAKES_EMPTY,
      input: { a: 1 },
      idempotency_key,
      limits: ROOMY,
    });
    expect([other.status, other.body.error?.code]).toEqual([409, "idempotency_conflict"]);
  });
});
