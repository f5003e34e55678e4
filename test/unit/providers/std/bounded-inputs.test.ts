/**
 * math.evaluate and json.query on the worst inputs their schemas admit: every
 * answer is a value or the tool's own error, reached in work linear in the input.
 *
 * Why linear: the arithmetic tokenizer advances over each character once (sticky regexes
 * without nested quantifiers); the parser consumes one token per step and nests at most 100
 * levels; the expression is at most 1,000 characters. A JSON Pointer (at most 4,096
 * characters) is split once and each token costs one own-property or index lookup, whatever
 * the document's size or depth.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolError, type ToolContext } from "../../../../providers/sdk/define.ts";
import { ArithmeticError, evaluateArithmetic } from "../../../../providers/std/src/tools/arithmetic.ts";
import { resolvePointer, MalformedPointer } from "../../../../providers/std/src/tools/json-pointer.ts";
import { jsonQuery } from "../../../../providers/std/src/tools/json-query.ts";
import { mathEvaluate } from "../../../../providers/std/src/tools/math-evaluate.ts";

const EXPRESSION_MAX = 1000;
const POINTER_MAX = 4096;

const ctx = {
  emit: () => {},
  signal: new AbortController().signal,
  remainingMs: () => 1000,
  caller: { tenant: "t", agent: "a" },
  executionId: "exec_t",
  context: {},
} as ToolContext;

/** The value, or the kind of ArithmeticError; anything else thrown fails the test. */
function outcome(expression: string): number | string {
  try {
    return evaluateArithmetic(expression);
  } catch (err) {
    if (err instanceof ArithmeticError) return err.kind;
    throw err;
  }
}

const fill = (unit: string, head = "", tail = "") =>
  head + unit.repeat(Math.floor((EXPRESSION_MAX - head.length - tail.length) / unit.length)) + tail;

describe("math.evaluate on adversarial expressions of the maximum length", () => {
  it.each([
    ["open parentheses", fill("("), "too_deep"],
    ["signs", fill("-", "", "1"), "too_deep"],
    ["a right-leaning tower of powers", fill("2^", "", "2"), "too_deep"],
    ["nested calls", fill("sqrt(", "", "1"), "too_deep"],
    ["a 1,000-digit number", fill("9"), "non_finite"],
    ["an exponent of 997 digits", fill("9", "1e"), "non_finite"],
    ["a long sum", fill("1+", "", "1"), 500],
    ["a long product of zeros and ones", fill("1*0*", "", "1"), 0],
    ["min of 499 arguments", fill("1,", "min(", "1)"), 1],
    ["only spaces", fill(" "), "syntax"],
    ["only dots", fill("."), "syntax"],
    ["a long name", fill("x"), "unknown_identifier"],
    ["division by a long zero", fill("0", "1/"), "division_by_zero"],
    ["unicode digits", fill("٣"), "syntax"],
  ])("answers %s", (_name, expression, expected) => {
    expect(expression.length).toBeLessThanOrEqual(EXPRESSION_MAX);
    expect(outcome(expression)).toBe(expected);
  });

  it("answers every random expression with a finite value or an ArithmeticError", () => {
    const piece = fc.constantFrom(
      "1",
      "0",
      "9",
      "2.5",
      ".5",
      "1e3",
      "1e",
      "pi",
      "e",
      "x",
      "sqrt",
      "min",
      "max",
      "+",
      "-",
      "*",
      "/",
      "%",
      "^",
      "(",
      ")",
      ",",
      " ",
      "é",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }).map((p) => p.join("").slice(0, EXPRESSION_MAX)),
        (expression) => {
          const result = outcome(expression);
          if (typeof result === "number") expect(Number.isFinite(result)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("reports each kind as the tool's declared error code", async () => {
    const declared = new Set(mathEvaluate.manifest.error_codes!.map((c) => c.code));
    for (const expression of ["1 +", "foo", "min()", "1/0", "9^999", fill("(")]) {
      const err = await Promise.resolve()
        .then(() => mathEvaluate.handler({ expression }, ctx))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(ToolError);
      expect(declared.has((err as ToolError).code!)).toBe(true);
    }
  });
});

describe("json.query on adversarial pointers and documents", () => {
  const deep = (depth: number) => {
    let doc: unknown = "bottom";
    for (let i = 0; i < depth; i++) doc = { a: doc };
    return doc;
  };

  it.each([
    ["slashes", "/".repeat(POINTER_MAX), { found: false }],
    ["escaped tildes", "/" + "~0".repeat(((POINTER_MAX - 1) / 2) | 0), { found: false }],
    ["escaped slashes", "/" + "~1".repeat(((POINTER_MAX - 1) / 2) | 0), { found: false }],
    ["one long token", "/" + "a".repeat(POINTER_MAX - 1), { found: false }],
    ["a long index", "/" + "9".repeat(POINTER_MAX - 1), { found: false }],
  ])("resolves a pointer of %s", (_name, pointer, expected) => {
    expect(pointer.length).toBeLessThanOrEqual(POINTER_MAX);
    expect(resolvePointer({ a: [1] }, pointer)).toEqual(expected);
  });

  it("finds the bottom of a document nested 2,048 levels with the longest pointer", () => {
    const pointer = "/a".repeat(POINTER_MAX / 2);
    expect(resolvePointer(deep(POINTER_MAX / 2), pointer)).toEqual({ found: true, value: "bottom" });
  });

  it("walks a pointer into a document nested 100,000 levels", () => {
    expect(resolvePointer(deep(100_000), "/a".repeat(POINTER_MAX / 2))).toMatchObject({ found: true });
  });

  it("indexes the last item of a 500,000-item array in one step", () => {
    const items = Array.from({ length: 500_000 }, (_, i) => i);
    expect(resolvePointer(items, "/499999")).toEqual({ found: true, value: 499_999 });
  });

  it.each([
    ["a bad escape at the end of a long pointer", "/" + "a".repeat(POINTER_MAX - 3) + "~2"],
    ["tildes", "/" + "~".repeat(POINTER_MAX - 1)],
    ["no leading slash", "a".repeat(POINTER_MAX)],
  ])("refuses %s as malformed_pointer", async (_name, path) => {
    expect(() => resolvePointer({}, path)).toThrow(MalformedPointer);
    const err = await Promise.resolve()
      .then(() => jsonQuery.handler({ document: {}, path }, ctx))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ code: "malformed_pointer" });
  });

  it("answers every random pointer with a resolution or MalformedPointer", () => {
    const document = { a: [{ "b/c": 1, "d~e": [true, null] }], "": "empty", n: 0 };
    const piece = fc.constantFrom("/", "~", "~0", "~1", "~2", "a", "0", "01", "-", "b/c", "__proto__", "");
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 200 }).map((p) => p.join("")),
        (pointer) => {
          try {
            const result = resolvePointer(document, pointer);
            expect(typeof result.found).toBe("boolean");
          } catch (err) {
            expect(err).toBeInstanceOf(MalformedPointer);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
