/**
 * What a reader of `npm start`'s terminal sees when a cancel is forced (docs/contract.md#cancellation): one line
 * saying so, as an expected event, and no `Uncaught` error from ending the abandoned handler's
 * invocation (src/execution/provider-relay.ts) — nor from anything it might still send.
 */
import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { asAdmin, bearer, call } from "./http.ts";
import { hold, newLatch, release } from "./latch.ts";
import { tenant } from "./tenants.ts";
import { provided } from "./stack.ts";

const stackLog = provided("stackLog");
const sizeOf = () => statSync(stackLog, { throwIfNoEntry: false })?.size ?? 0;
const since = (offset: number) => readFileSync(stackLog).subarray(offset).toString("utf8");

describe("a forced cancel in the stack's terminal", () => {
  it("is one line per execution saying it was forced, and no uncaught error; the tenant's slots come back at once", async () => {
    // A slots-* tenant has two slots. A forced cancel ends the provider's invocation, so its
    // slot comes back as soon as the execution has ended, not when the handler would have returned.
    const key = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: tenant("slots"), agent: "dev-agent", channels: ["*"] })
    ).body.key as string;
    const as = (method: string, path: string, body?: unknown) => call(method, path, body, bearer(key));
    const from = sizeOf();

    // lab.hold emits, then waits ignoring its signal until released, then emits a log event and returns.
    const latch = newLatch();
    const ids: string[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const started = await as("POST", "/v1/executions", {
          ...hold(latch),
          mode: "async",
          limits: { timeout_ms: 30_000 },
        });
        expect(started.status).toBe(202);
        ids.push(started.body.execution_id);
      }
      for (const id of ids) {
        for (let i = 0; i < 200 && (await as("GET", `/v1/executions/${id}`)).body.status !== "running"; i++)
          await new Promise((r) => setTimeout(r, 50));
        const res = await as("POST", `/v1/executions/${id}/cancel`, { grace_ms: 200 });
        expect(res.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "forced" } });
      }

      // A sync call with less than a second of budget may not wait in the queue (docs/contract.md#waiting): it
      // is admitted once the two slots are back, which takes the execution objects' releases only.
      let admitted = false;
      for (let i = 0; i < 50 && !admitted; i++) {
        admitted =
          (await as("POST", "/v1/executions", { tool: "lab.echo", input: {}, limits: { timeout_ms: 500 } })).status ===
          200;
        if (!admitted) await new Promise((r) => setTimeout(r, 100));
      }
      expect(admitted).toBe(true);
    } finally {
      await release(latch);
    }

    const log = since(from).split("\n");
    // What a forced cancel must not leave: an uncaught error of its own (ending an invocation that
    // still had work pending is workerd's to do quietly). The stack is shared, so
    // its log also holds what other files set going and is still running: the audit drills'
    // deliberate batch failures (retried by the queue for a while) and workerd's "code had hung"
    // cancellations of requests other files left open (named in the issue note to investigate).
    // Neither names an execution of this test; they are not this test's to judge. Nor is
    // workerd's "Promise will never complete", which it prints when a promise's resolver is
    // collected while something awaits it: it names nothing, appeared in full runs after
    // different files (MCP, console, fairness) and never with this file alone, so it cannot be
    // told apart from another file's abandoned request. Our own late handlers' errors (a write
    // after the end, a late answer) still count.
    const others =
      /audit drill:|had hung and would never generate a response|Uncaught Error: Promise will never complete\.(\s|\x1b\[[0-9;]*m)*$/;
    expect(log.filter((l) => /uncaught/i.test(l) && !others.test(l))).toEqual([]);
    for (const id of ids) expect(log.filter((l) => l.includes("cancel forced") && l.includes(id))).toHaveLength(1);
  }, 60_000);
});
