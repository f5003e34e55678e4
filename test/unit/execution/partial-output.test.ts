import { describe, expect, it } from "vitest";
import { foldPartials, mergePartial, PartialShapeError } from "../../../src/execution/partial-output.ts";

describe("mergePartial", () => {
  it("replaces the partial output with each event by default", () => {
    expect(mergePartial(undefined, { counted: [3] }, { counted: [3, 2] })).toEqual({ counted: [3, 2] });
    expect(mergePartial("replace", [1], [2])).toEqual([2]);
  });

  it("appends the items of an array event", () => {
    let partial: unknown = undefined;
    for (const data of [[1], [2, 3], [], [{ id: 4 }]]) partial = mergePartial("append", partial, data);
    expect(partial).toEqual([1, 2, 3, { id: 4 }]);
  });

  it("concatenates string events", () => {
    let partial: unknown = undefined;
    for (const data of ["The ", "answer", " is 42."]) partial = mergePartial("append", partial, data);
    expect(partial).toBe("The answer is 42.");
  });

  it("never changes the previous value", () => {
    const previous = [1, 2];
    const next = mergePartial("append", previous, [3]);
    expect(previous).toEqual([1, 2]);
    expect(next).toEqual([1, 2, 3]);
    const first = [9];
    expect(mergePartial("append", undefined, first)).not.toBe(first);
  });

  it.each([
    [{ a: 1 }, "an object"],
    [7, "a number"],
    [null, "null"],
    [true, "a boolean"],
  ])("refuses an appended event that is neither an array nor a string: %j", (data, shape) => {
    expect(() => mergePartial("append", undefined, data)).toThrow(PartialShapeError);
    expect(() => mergePartial("append", undefined, data)).toThrow(shape);
  });

  it("refuses to mix arrays and strings in one execution", () => {
    expect(() => mergePartial("append", [1], "x")).toThrow(/append a string to a partial output that is an array/);
    expect(() => mergePartial("append", "x", [1])).toThrow(/append an array to a partial output that is a string/);
  });
});

describe("foldPartials", () => {
  it("gives what folding event by event gives, for both rules and both shapes", () => {
    const sequences: [undefined | "replace" | "append", unknown[]][] = [
      ["replace", [{ n: 1 }, { n: 2 }]],
      [undefined, [[1], [2]]],
      ["append", [[1], [], [2, 3]]],
      ["append", ["a", "", "bc"]],
    ];
    for (const [rule, events] of sequences) {
      const stepwise = events.reduce<unknown>((previous, data) => mergePartial(rule, previous, data), undefined);
      expect(foldPartials(rule, events)).toEqual(stepwise);
    }
  });

  it("has nothing to show before the first event", () => {
    expect(foldPartials("append", [])).toBeUndefined();
    expect(foldPartials("replace", [])).toBeUndefined();
  });

  it("folds 200,000 one-item events (the stepwise fold would copy ~2·10^10 items)", () => {
    const events = Array.from({ length: 200_000 }, (_, i) => [i]);
    const folded = foldPartials("append", events) as number[];
    expect(folded.length).toBe(200_000);
    expect(folded[199_999]).toBe(199_999);
  });

  it("refuses a sequence that changes shape", () => {
    expect(() => foldPartials("append", [[1], "x"])).toThrow(PartialShapeError);
    expect(() => foldPartials("append", ["x", { y: 1 }])).toThrow(PartialShapeError);
  });
});
