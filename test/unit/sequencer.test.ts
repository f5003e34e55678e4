import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import LongFirstSequencer, { LONG_FILES, shuffle } from "../sequencer.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

describe("the test files' order (test/sequencer.ts)", () => {
  it("names long files that exist: a renamed file would silently lose its place", () => {
    expect(LONG_FILES.filter((f) => !existsSync(join(root, f)))).toEqual([]);
  });

  it("shuffles by the seed: the same seed gives the same order, another seed another", () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    expect(shuffle(items, 24928)).toEqual(shuffle(items, 24928));
    expect(shuffle(items, 24928)).not.toEqual(shuffle(items, 24929));
    expect([...shuffle(items, 7)].sort((a, b) => a - b)).toEqual(items);
  });

  it("puts the long files first, each part in the shuffle's order", async () => {
    const names = ["test/e2e/a.test.ts", LONG_FILES[0], "test/e2e/b.test.ts", LONG_FILES[1], "test/unit/c.test.ts"];
    const specs = names.map((n) => ({ moduleId: `${root}/${n}` }) as TestSpecification);
    const ctx = { config: { root, sequence: { seed: 5 } } } as unknown as Vitest;
    const sorted = (await new LongFirstSequencer(ctx).sort(specs)).map((s) => s.moduleId.slice(root.length + 1));
    const shuffled = shuffle(names, 5);
    expect(sorted).toEqual([
      ...shuffled.filter((n) => LONG_FILES.includes(n)),
      ...shuffled.filter((n) => !LONG_FILES.includes(n)),
    ]);
    expect(sorted.slice(0, 2).sort()).toEqual([LONG_FILES[0], LONG_FILES[1]].sort());
  });
});
