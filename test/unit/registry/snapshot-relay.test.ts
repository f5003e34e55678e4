/**
 * A data center's relay of the registry snapshot (src/registry/snapshot-relay.ts): one registry
 * read per TTL, shared by every asker meanwhile, answered with the time the registry answered.
 */
import { describe, expect, it } from "vitest";
import type { RegistrySnapshot } from "../../../src/registry/catalog.ts";
import { registryOfRelay, relayName } from "../../../src/object-stubs.ts";
import { SnapshotRelay } from "../../../src/registry/snapshot-relay.ts";

const TTL = 5_000;
const snap = (version: number) => ({ version }) as RegistrySnapshot;

function registry() {
  let now = 1_000;
  let version = 1;
  let reads = 0;
  let fail = false;
  let release: (() => void) | undefined;
  const read = async () => {
    reads++;
    if (release === undefined) await new Promise<void>((r) => (release = r));
    if (fail) throw new Error("registry unreachable");
    return snap(version);
  };
  return {
    relay: new SnapshotRelay(
      read,
      () => TTL,
      () => now,
    ),
    reads: () => reads,
    /** Answers the read in flight (and every later one at once). */
    answer: () => {
      const r = release;
      release = () => {};
      r?.();
    },
    hold: () => (release = undefined),
    advance: (ms: number) => (now += ms),
    now: () => now,
    bump: () => version++,
    failing: (f: boolean) => (fail = f),
  };
}

describe("a data center's snapshot relay", () => {
  it("shares one registry read among every asker while it runs, then answers from its copy for a TTL", async () => {
    const r = registry();
    const askers = Array.from({ length: 50 }, () => r.relay.snapshot());
    await Promise.resolve();
    expect(r.reads()).toBe(1);
    r.answer();
    const answers = await Promise.all(askers);
    expect(new Set(answers.map((a) => a.snapshot.version))).toEqual(new Set([1]));
    expect(answers[0].fetched_at).toBe(1_000);
    r.advance(TTL - 1);
    expect((await r.relay.snapshot()).fetched_at).toBe(1_000);
    expect(r.reads()).toBe(1);
    r.bump();
    r.advance(1);
    expect((await r.relay.snapshot()).snapshot.version).toBe(2);
    expect(r.reads()).toBe(2);
  });

  it("answers with the time the registry was asked, so a copy it passes on is not fresh for longer than the TTL", async () => {
    const r = registry();
    r.answer();
    await r.relay.snapshot();
    r.advance(TTL + 10);
    r.hold();
    const pending = r.relay.snapshot();
    const askedAt = r.now();
    r.advance(300); // the registry's round trip
    r.answer();
    expect((await pending).fetched_at).toBe(askedAt);
  });

  it("takes an operator's newer snapshot at once, and never steps back to an older one", async () => {
    const r = registry();
    r.answer();
    await r.relay.snapshot();
    r.relay.offer(snap(7));
    expect((await r.relay.snapshot()).snapshot.version).toBe(7);
    r.relay.offer(snap(3));
    expect((await r.relay.snapshot()).snapshot.version).toBe(7);
    r.advance(TTL);
    // The registry's answer (version 1) is older than what the relay holds: it keeps 7.
    expect((await r.relay.snapshot()).snapshot.version).toBe(7);
    expect(r.reads()).toBe(2);
  });

  it("answers its old copy when the registry cannot be read, and fails only with no copy at all", async () => {
    const r = registry();
    r.failing(true);
    r.answer();
    await expect(r.relay.snapshot()).rejects.toThrow("registry unreachable");
    r.failing(false);
    await r.relay.snapshot();
    r.advance(TTL);
    r.failing(true);
    const stale = await r.relay.snapshot();
    expect(stale).toMatchObject({ snapshot: { version: 1 }, fetched_at: 1_000 });
  });

  it("is named after its registry and data center", () => {
    expect(relayName("registry", "FRA")).toBe("registry@FRA");
    expect(registryOfRelay("registry@FRA")).toBe("registry");
    expect(registryOfRelay("test-registry-1@SIM")).toBe("test-registry-1");
  });
});
