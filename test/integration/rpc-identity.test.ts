/**
 * Workers RPC (src/rpc.ts) reached through a binding that carries no caller identity: the
 * runtime's own loopback binding to its ToolRuntime entrypoint has no `props`, as a caller's
 * binding without a `props` table would not: every method refuses before it does anything.
 * (With props, through the example caller Worker: test/e2e/rpc.test.ts.)
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const unauthenticated = { ok: false, error: { code: "unauthenticated", retryable: false } };

describe("Workers RPC without props", () => {
  it("refuses every method with unauthenticated, naming what the binding lacks", async () => {
    const rpc = exports.ToolRuntime;
    const invoked = await rpc.invoke("math.evaluate", { expression: "1 + 1" });
    expect(invoked).toMatchObject(unauthenticated);
    expect(invoked.ok ? "" : invoked.error.message).toMatch(/props\.tenant and props\.agent/);
    expect(await rpc.start("demo.countdown", { from: 1, interval_ms: 0 })).toMatchObject(unauthenticated);
    expect(await rpc.invokeStream("demo.countdown", { from: 1, interval_ms: 0 })).toMatchObject(unauthenticated);
    expect(await rpc.listTools()).toMatchObject(unauthenticated);
    expect(await rpc.getExecution(`exec_${"0".repeat(64)}`)).toMatchObject(unauthenticated);
    expect(await rpc.cancel(`exec_${"0".repeat(64)}`)).toMatchObject(unauthenticated);
  });
});
