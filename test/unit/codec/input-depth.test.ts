import { describe, expect, it } from "vitest";
import { exceedsDepth, MAX_INPUT_DEPTH } from "../../../src/codec/input-depth.ts";

const nested = (depth: number) => JSON.parse("[".repeat(depth) + "]".repeat(depth));

describe("exceedsDepth", () => {
  it.each([
    [0, "a number", 7],
    [1, "a flat object", { a: 1, b: "x" }],
    [2, "an object holding an array", { a: [1, 2] }],
  ])("measures %i level(s) for %s", (levels, _what, value) => {
    expect(exceedsDepth(value, levels)).toBe(false);
    if (levels > 0) expect(exceedsDepth(value, levels - 1)).toBe(true);
  });

  it("allows the default depth and refuses one more", () => {
    expect(exceedsDepth(nested(MAX_INPUT_DEPTH))).toBe(false);
    expect(exceedsDepth(nested(MAX_INPUT_DEPTH + 1))).toBe(true);
  });

  it("measures a value nested 500,000 levels (a 1 MiB body) without recursing", () => {
    const deep = nested(500_000);
    expect(() => structuredClone(deep)).toThrow(RangeError); // what the runtime would meet later
    expect(exceedsDepth(deep)).toBe(true);
  });

  it("walks a wide document once", () => {
    const wide = { items: Array.from({ length: 200_000 }, (_, i) => ({ i, tags: ["a"] })) };
    // object → array → object → array: four levels.
    expect(exceedsDepth(wide, 4)).toBe(false);
    expect(exceedsDepth(wide, 3)).toBe(true);
  });
});
