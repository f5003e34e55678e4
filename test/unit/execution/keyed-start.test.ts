/** The rules of a keyed call (docs/contract.md#idempotency), pure: replay, conflict, a new use, and one use at a time. */
import { describe, expect, it } from "vitest";
import {
  bindingHolds,
  currentBinding,
  KeyUses,
  keyedStep,
  movedBinding,
  withDeprecation,
  type KeyBinding,
} from "../../../src/execution/keyed-start.ts";
import type { StartAnswer } from "../../../src/execution/object-rpc.ts";
import type { DeprecationNotice, Outcome } from "../../../src/contract.ts";
import { errorBody } from "../../../src/errors.ts";
import { toView } from "../../../src/execution/record.ts";
import { executionRecord } from "../../fixtures/record.ts";

const EXPIRES = 100_000;
const keyed = (status: Parameters<typeof executionRecord>[0]) =>
  executionRecord(status, { idempotency: { key: "k", fingerprint: "fp", expires_at: EXPIRES } });
const elsewhere: KeyBinding = { execution_id: "exec_elsewhere", fingerprint: "fp2", expires_at: 200_000 };

describe("keyed start", () => {
  it("binds the key to the execution it moved on to, else to this object's own keyed execution", () => {
    const own = keyed("running");
    expect(currentBinding(elsewhere, own)).toBe(elsewhere);
    expect(currentBinding(undefined, own)).toEqual({
      execution_id: own.execution_id,
      fingerprint: "fp",
      expires_at: EXPIRES,
    });
    expect(currentBinding(undefined, executionRecord("running"))).toBeUndefined();
    expect(currentBinding(undefined, undefined)).toBeUndefined();
  });

  it("holds a binding until its TTL ends (the end itself is past it), and on while its own execution runs", () => {
    const ended = keyed("succeeded");
    const binding = currentBinding(undefined, ended)!;
    expect(bindingHolds(binding, ended, EXPIRES - 1)).toBe(true);
    expect(bindingHolds(binding, ended, EXPIRES)).toBe(false);
    const running = keyed("running");
    expect(bindingHolds(currentBinding(undefined, running)!, running, EXPIRES + 1_000_000)).toBe(true);
    // A binding to another object's execution: only its TTL counts (its end is not known here).
    expect(bindingHolds(elsewhere, running, elsewhere.expires_at)).toBe(false);
    expect(bindingHolds(elsewhere, running, elsewhere.expires_at - 1)).toBe(true);
  });

  it("replays the same request within the TTL: here when the execution is this object's, else where the key moved", () => {
    const own = keyed("succeeded");
    expect(keyedStep(currentBinding(undefined, own), "fp", own, EXPIRES - 1)).toEqual({
      kind: "replay",
      execution_id: own.execution_id,
      here: true,
    });
    expect(keyedStep(elsewhere, "fp2", own, EXPIRES + 1)).toEqual({
      kind: "replay",
      execution_id: "exec_elsewhere",
      here: false,
    });
  });

  it("refuses another request under a key that holds, past its TTL too while its execution has not ended", () => {
    const own = keyed("running");
    const binding = currentBinding(undefined, own);
    expect(keyedStep(binding, "other", own, EXPIRES - 1)).toEqual({ kind: "conflict", execution_id: own.execution_id });
    expect(keyedStep(binding, "other", own, EXPIRES + 1)).toEqual({ kind: "conflict", execution_id: own.execution_id });
    expect(keyedStep(binding, "fp", own, EXPIRES + 1)).toMatchObject({ kind: "replay", here: true });
  });

  it("starts a first use here, and a use past the TTL of an ended one under a new id, whatever its fingerprint", () => {
    expect(keyedStep(undefined, "fp", undefined, 0)).toEqual({ kind: "new", here: true });
    const ended = keyed("failed");
    const binding = currentBinding(undefined, ended);
    expect(keyedStep(binding, "fp", ended, EXPIRES)).toEqual({ kind: "new", here: false });
    expect(keyedStep(binding, "other", ended, EXPIRES)).toEqual({ kind: "new", here: false });
    expect(keyedStep(elsewhere, "other", ended, elsewhere.expires_at)).toEqual({ kind: "new", here: false });
  });

  it("counts a moved key's TTL from when the call came", () => {
    expect(movedBinding("exec_new", "fp", 60_000, 5_000)).toEqual({
      execution_id: "exec_new",
      fingerprint: "fp",
      expires_at: 65_000,
    });
  });

  it("lets one use start at a time: duplicates woken together see the first one's new use", async () => {
    const uses = new KeyUses();
    expect(uses.inProgress).toBeUndefined();
    const first = uses.begin();
    const began: string[] = [];
    const duplicate = async (name: string) => {
      while (uses.inProgress) await uses.inProgress;
      if (began.length === 0) {
        began.push(name);
        uses.begin();
      } else began.push(`${name} waited`);
    };
    const a = duplicate("a");
    const b = duplicate("b");
    first();
    await a;
    expect(began).toEqual(["a"]);
    expect(uses.inProgress).toBeDefined();
    // b still waits for a's use; it is not started twice.
    let bDone = false;
    void b.then(() => (bDone = true));
    await Promise.resolve();
    expect(bDone).toBe(false);
  });

  it("puts the deprecation notice on a new use's answer only", () => {
    const answer: Outcome<StartAnswer> = {
      ok: true,
      value: { view: toView(executionRecord("queued")), replayed: false },
    };
    const deprecation: DeprecationNotice = {
      sunset: "2027-01-01T00:00:00.000Z",
      replacement: "2.0.0",
      deprecated_at: "2026-06-01T00:00:00.000Z",
    };
    expect(withDeprecation(answer, deprecation)).toEqual({ ok: true, value: { ...answer.value, deprecation } });
    expect(withDeprecation(answer, undefined)).toBe(answer);
    const refused: Outcome<StartAnswer> = { ok: false, error: errorBody("internal", "no") };
    expect(withDeprecation(refused, deprecation)).toBe(refused);
  });
});
