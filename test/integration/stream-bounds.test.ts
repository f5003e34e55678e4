/**
 * Bounded streams in workerd (docs/contract.md#streaming): 100 subscribers of one execution that never read
 * leave its object holding at most MAX_FANOUT_BYTES of event bytes for them, while a reader
 * that keeps up gets every event; a dropped reader resumes from its last event.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, ExecutionEvent } from "../../src/contract.ts";
import { executionScope } from "../../src/auth/roles.ts";
import { traceFrom } from "../../src/audit/trace.ts";
import { newObjectExecutionId, objectStub } from "../../src/execution/ids.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution } from "../../src/pipeline/plan.ts";
import { MAX_FANOUT_BYTES } from "../../src/stream/fanout.ts";

const caller: Caller = { tenant: `t-${crypto.randomUUID()}`, agent: "tester", capabilities: [], channels: ["*"] };
const EVENTS = 3_000;

async function events(stream: ReadableStream<Uint8Array>): Promise<{ seqs: number[]; ended: "closed" | "aborted" }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let ended: "closed" | "aborted" = "closed";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    ended = "aborted";
  }
  const lines = text.split("\n").filter(Boolean);
  return { seqs: lines.map((l) => (JSON.parse(l) as ExecutionEvent).seq), ended };
}

describe("an execution with 100 readers that never read", () => {
  it(`holds at most ${MAX_FANOUT_BYTES} bytes of events for them, and a reader that keeps up gets all`, async () => {
    const executionId = newObjectExecutionId(env);
    const request = parseExecutionRequest({
      tool: "lab.burst",
      mode: "async",
      input: { count: EVENTS, wait_ms: 1_000 },
      limits: { timeout_ms: 25_000 },
    });
    const { plan } = await planExecution(env, caller, request, {
      acceptedAt: Date.now(),
      trace: traceFrom(undefined),
      face: "rest",
      executionId,
    });
    const stub = objectStub(env, executionId);
    const started = await stub.start(plan, "accepted");
    expect(started).toMatchObject({ ok: true });
    const open = async () => {
      const answer = await stub.events(executionScope(caller), 0);
      if (!answer.ok || answer.value.kind !== "stream") throw new Error("no stream");
      return answer.value.stream;
    };
    const slow = await Promise.all(Array.from({ length: 100 }, open));
    const fast = events(await open());

    const got = await fast;
    expect(got.seqs).toEqual(Array.from({ length: EVENTS + 2 }, (_, i) => i + 1)); // start, the events, done
    expect(got.ended).toBe("closed");
    const { peak_queued_bytes: most } = await stub.streams();
    expect(most).toBeLessThanOrEqual(MAX_FANOUT_BYTES);
    expect(most).toBeGreaterThan(MAX_FANOUT_BYTES / 2); // reached, not avoided: the readers together wanted more

    // Each slow reader got a contiguous prefix: all of it when its stream closed, or up to where
    // it was dropped, from where it resumes and gets the rest.
    const dropped: number[] = [];
    let kept = 0;
    for (const s of slow) {
      const r = await events(s);
      expect(r.seqs).toEqual(r.seqs.map((_, i) => i + 1));
      if (r.ended === "aborted") dropped.push(r.seqs.length);
      else {
        expect(r.seqs).toHaveLength(EVENTS + 2);
        kept++;
      }
    }
    console.log(`most bytes held: ${most}; readers dropped: ${dropped.length} of 100`);
    // Both happened, so both claims were tested: some readers were dropped, and the rest got all.
    expect(dropped.length, "readers dropped").toBeGreaterThan(0);
    expect(kept, "readers kept").toBeGreaterThan(0);
    const answer = await stub.events(executionScope(caller), dropped[0]);
    if (!answer.ok || answer.value.kind !== "stream") throw new Error("no resume");
    const rest = await events(answer.value.stream);
    expect(rest.seqs).toEqual(Array.from({ length: EVENTS + 2 - dropped[0] }, (_, i) => dropped[0] + 1 + i));
    expect(await stub.streams()).toMatchObject({ subscribers: 0, queued_bytes: 0 });
  }, 120_000); // 101 readers of 3,002 events each, on 2 shared cores
});
