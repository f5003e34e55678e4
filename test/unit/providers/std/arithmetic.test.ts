import { describe, expect, it } from "vitest";
import {
  ArithmeticError,
  evaluateArithmetic,
  type ArithmeticErrorKind,
} from "../../../../providers/std/src/tools/arithmetic.ts";

function failure(expression: string): ArithmeticError {
  try {
    evaluateArithmetic(expression);
  } catch (err) {
    if (err instanceof ArithmeticError) return err;
    throw err;
  }
  throw new Error(`${expression} evaluated without an error`);
}

describe("evaluateArithmetic", () => {
  it.each([
    ["2 + 3 * 4", 14],
    ["(2 + 3) * 4", 20],
    ["10 - 4 - 3", 3],
    ["100 / 10 / 5", 2],
    ["7 % 4 * 2", 6],
    ["2 ^ 3 ^ 2", 512],
    ["2 * 3 ^ 2", 18],
  ])("applies precedence and associativity: %s = %d", (expression, value) => {
    expect(evaluateArithmetic(expression)).toBe(value);
  });

  it.each([
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["--3", 3],
    ["+-+4", -4],
    ["3 - -2", 5],
    ["-3 * -3", 9],
  ])("binds a sign looser than ^ and tighter than * : %s = %d", (expression, value) => {
    expect(evaluateArithmetic(expression)).toBe(value);
  });

  it("reads integers, decimals and exponents", () => {
    expect(evaluateArithmetic("42")).toBe(42);
    expect(evaluateArithmetic("0.25 + .75")).toBe(1);
    expect(evaluateArithmetic("1e3 + 2.5E-1 + 1e+1")).toBe(1010.25);
  });

  it("knows pi and e", () => {
    expect(evaluateArithmetic("pi")).toBe(Math.PI);
    expect(evaluateArithmetic("2 * e")).toBe(2 * Math.E);
  });

  it.each([
    ["sqrt(16)", 4],
    ["abs(-3.5)", 3.5],
    ["floor(2.7) + ceil(2.1) + round(2.5)", 8],
    ["min(4, 2, 8)", 2],
    ["max(4, 2 * 5, 8)", 10],
    ["ln(e)", 1],
    ["log10(1000)", 3],
    ["sin(0) + cos(0) + tan(0)", 1],
    ["sqrt(max(9, 16)) ^ 2", 16],
  ])("calls functions: %s = %d", (expression, value) => {
    expect(evaluateArithmetic(expression)).toBeCloseTo(value, 12);
  });

  it.each<[string, ArithmeticErrorKind, number | undefined]>([
    ["2 +", "syntax", 3],
    ["(1 + 2", "syntax", 6],
    ["1 + 2)", "syntax", 5],
    ["2 3", "syntax", 2],
    ["4 $ 2", "syntax", 2],
    ["min()", "syntax", 4],
    ["sqrt", "syntax", 0],
    ["", "syntax", 0],
    ["2e", "syntax", 1],
    ["foo + 1", "unknown_identifier", 0],
    ["1 + bar(2)", "unknown_identifier", 4],
    ["constructor", "unknown_identifier", 0],
    ["sqrt(1, 2)", "wrong_argument_count", 0],
    ["1 / 0", "division_by_zero", 2],
    ["5 % (2 - 2)", "division_by_zero", 2],
    ["sqrt(-1)", "non_finite", 0],
    ["ln(0)", "non_finite", 0],
    ["10 ^ 400", "non_finite", 3],
    ["1e400", "non_finite", 0],
  ])("refuses %j as %s at position %d", (expression, kind, position) => {
    const err = failure(expression);
    expect(err.kind).toBe(kind);
    expect(err.position).toBe(position);
  });

  it("allows 100 levels of parentheses and refuses 101", () => {
    expect(evaluateArithmetic("(".repeat(100) + "1" + ")".repeat(100))).toBe(1);
    expect(failure("(".repeat(101) + "1" + ")".repeat(101)).kind).toBe("too_deep");
    expect(failure("-".repeat(101) + "1").kind).toBe("too_deep");
  });

  it("is an Error that names itself ArithmeticError", () => {
    const err = failure("1/0");
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("ArithmeticError");
    expect(err.message).toContain("position 1");
  });

  it("agrees with a structural evaluation on 400 random integer expressions", () => {
    // mulberry32: deterministic, so a failure reproduces.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = (n: number) => Math.floor(random() * n);

    // Every binary node is parenthesized, so the reference value follows the tree, not precedence.
    function generate(depth: number): { text: string; value: number } {
      if (depth === 0 || random() < 0.3) {
        const n = pick(100);
        return random() < 0.2 ? { text: `-${n}`, value: -n } : { text: String(n), value: n };
      }
      const left = generate(depth - 1);
      const right = generate(depth - 1);
      const op = "+-*"[pick(3)];
      const value =
        op === "+" ? left.value + right.value : op === "-" ? left.value - right.value : left.value * right.value;
      return { text: `(${left.text} ${op} ${right.text})`, value };
    }

    for (let i = 0; i < 400; i++) {
      const { text, value } = generate(1 + pick(5));
      expect(evaluateArithmetic(text), text).toBe(value);
    }
  });

  it("follows the usual precedence on random unparenthesized sums of products", () => {
    let seed = 7;
    const pick = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 100; i++) {
      // sum of products, each product of 1..3 factors: the reference groups them itself.
      const terms = Array.from({ length: 1 + pick(4) }, () => Array.from({ length: 1 + pick(3) }, () => pick(20)));
      const signs = terms.map((_, k) => (k === 0 || pick(2) === 0 ? "+" : "-"));
      const text = terms.map((t, k) => `${k === 0 ? "" : ` ${signs[k]} `}${t.join(" * ")}`).join("");
      const products = terms.map((t) => t.reduce((p, f) => p * f));
      const value = products.reduce((sum, p, k) => (k === 0 ? p : signs[k] === "-" ? sum - p : sum + p), 0);
      expect(evaluateArithmetic(text), text).toBe(value);
    }
  });
});
