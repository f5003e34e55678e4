/**
 * The order files run in: the seed's shuffle (every file passes in any order, and
 * `TEST_SEED=<seed> npm test` runs an order again), then, stably, the files known to take
 * longest first. The e2e group's two workers take files from one list; a 20–35 s file drawn
 * last keeps one worker busy while the other waits (a clean clone's run, seed 24928: the
 * conformance file started at 282 s and ran alone for its last 15 s). Longest first is the
 * usual cure; the shuffle still decides the order among the long files and among the rest.
 *
 * vitest's own sequencers cannot do it: its random one ignores durations, and its default one
 * sorts by the durations of earlier runs on this machine, which a clean clone does not have.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Files that took 10 s or more in a clean clone's run (`--reporter=json`, 2 cores). */
export const LONG_FILES = [
  "test/e2e/audit-and-metrics.test.ts",
  "test/e2e/mcp-conformance.test.ts",
  "test/e2e/waiting.test.ts",
  "test/e2e/readme.test.ts",
  "test/e2e/upstreams.test.ts",
  "test/e2e/console-upstreams.test.ts",
  "test/e2e/routing.test.ts",
  "test/e2e/event-log-bounds.test.ts",
  "test/e2e/idempotency-and-retry.test.ts",
  "test/e2e/cli-admin.test.ts",
  "test/unit/format.test.ts",
  "test/unit/scripts/deploy-dry-run.test.ts",
  "test/integration/intent-verifier.test.ts",
];

/** A seeded shuffle (mulberry32 feeding Fisher–Yates): the same seed, the same order. */
export function shuffle<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root.replace(/\/$/, "");
    const long = (spec: TestSpecification) => LONG_FILES.includes(spec.moduleId.slice(root.length + 1));
    const order = shuffle(files, this.ctx.config.sequence.seed);
    // Groups (sequence.groupOrder) are formed from this list in its order, so one partition serves them all.
    return [...order.filter(long), ...order.filter((f) => !long(f))];
  }
}
