/**
 * Workers RPC (src/rpc.ts) through the example caller Worker: the same calls as REST give the
 * same output, status and error codes; the identity is the binding's props, never the call's.
 */
import { describe, expect, it } from "vitest";
import { asAdmin, call, CALLER_AUTH, execute, ROOMY } from "./http.ts";
import { provided } from "./stack.ts";

const callerUrl = provided("callerUrl");

async function viaRpc(tool: string, input: unknown, options: Record<string, unknown> = {}) {
  const q = new URLSearchParams({
    tool,
    input: JSON.stringify(input),
    options: JSON.stringify({ limits: ROOMY, ...options }),
  });
  return (await (await fetch(`${callerUrl}/call?${q}`, { headers: CALLER_AUTH })).json()) as any;
}

describe("Workers RPC for service-binding callers", () => {
  it("runs the example caller's any-tool route only for a holder of its CALLER_TOKEN", async () => {
    const q = new URLSearchParams({
      tool: "math.evaluate",
      input: JSON.stringify({ expression: "1 + 1" }),
      options: JSON.stringify({ limits: ROOMY }),
    });
    for (const headers of [{}, { authorization: "Bearer not-the-caller-token" }] as Record<string, string>[]) {
      const refused = await fetch(`${callerUrl}/call?${q}`, { headers });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: string }).error).toContain("CALLER_TOKEN");
    }
    expect(await viaRpc("math.evaluate", { expression: "1 + 1" })).toMatchObject({
      ok: true,
      value: { output: { value: 2 } },
    });
  });

  it("gives the same output and status as REST", async () => {
    const [rest, rpc] = [
      await execute({ tool: "json.query", input: { document: { a: [1, 2] }, path: "/a/1" } }),
      await viaRpc("json.query", { document: { a: [1, 2] }, path: "/a/1" }),
    ];
    expect(rpc.ok).toBe(true);
    expect([rpc.value.status, rpc.value.output]).toEqual([rest.body.status, rest.body.output]);
  });

  it("gives the same error codes as REST, for refused calls and for failed executions", async () => {
    for (const [tool, input] of [
      ["math.evaluate", { nope: 1 }],
      ["no.such.tool", {}],
      ["lab.bad_output", {}],
      ["lab.crash", {}],
    ] as const) {
      const [rest, rpc] = [await execute({ tool, input }), await viaRpc(tool, input)];
      expect(rpc.ok).toBe(false);
      expect(rpc.error.code).toBe(rest.body.error.code);
      expect(rpc.error.retryable).toBe(rest.body.error.retryable);
    }
  });

  it("takes the caller's identity from the binding's props and ignores a forged one", async () => {
    // The caller Worker's tenant is fixed by its binding's props (examples/caller/wrangler.jsonc),
    // so every file that calls through it shares "example": this test reads only its own
    // execution's record, among those since it began.
    const since = new Date(Date.now() - 1_000).toISOString();
    const forged = (await (await fetch(`${callerUrl}/forged`)).json()) as any;
    expect(forged.ok).toBe(true);
    const id = forged.value.execution_id;
    // Not the dev tenant's execution: REST with the dev key cannot see it.
    expect((await call("GET", `/v1/executions/${id}`)).status).toBe(404);
    let record: any;
    for (let i = 0; i < 100 && !record; i++) {
      record = (await asAdmin("GET", `/v1/audit?tenant=example&since=${since}&limit=100`)).body.records.find(
        (r: any) => r.execution_id === id,
      );
      if (!record) await new Promise((r) => setTimeout(r, 200));
    }
    expect(record).toMatchObject({ tenant: "example", agent: "example-caller" });
  });

  it("refuses arguments REST would refuse, e.g. an unknown option", async () => {
    const rpc = await viaRpc("math.evaluate", { expression: "1" }, { tenant: "someone-else" });
    expect(rpc).toMatchObject({ ok: false, error: { code: "invalid_request", details: { field: "tenant" } } });
  });

  it("streams an execution's events over RPC", async () => {
    const res = await fetch(`${callerUrl}/stream`);
    const text = await res.text();
    expect(res.headers.get("x-execution-id")).toMatch(/^exec_/);
    expect(text).toContain("event: start");
    expect(text.trim().split("\n\n").at(-1)).toContain("event: done");
  });
});
