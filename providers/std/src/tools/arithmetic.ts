/**
 * A recursive-descent evaluator for arithmetic expressions. Never `eval`: the expression
 * comes from a caller, and a grammar of our own is the whole attack surface.
 *
 *   sum     := product (("+" | "-") product)*
 *   product := signed (("*" | "/" | "%") signed)*
 *   signed  := ("+" | "-") signed | power
 *   power   := atom ("^" signed)?          right-associative, binds tighter than a sign
 *   atom    := number | constant | function "(" sum ("," sum)* ")" | "(" sum ")"
 *
 * So `-2^2` is -4 and `2^-1` is 0.5, as in most calculators and in mathematics.
 */

export type ArithmeticErrorKind =
  "syntax" | "unknown_identifier" | "wrong_argument_count" | "division_by_zero" | "non_finite" | "too_deep";

/** Why an expression has no value; `position` is a 0-based index into the expression. */
export class ArithmeticError extends Error {
  // Plain fields, not parameter properties: Node's type stripping cannot load those.
  readonly kind: ArithmeticErrorKind;
  readonly position?: number;
  constructor(message: string, kind: ArithmeticErrorKind, position?: number) {
    super(message);
    this.name = "ArithmeticError";
    this.kind = kind;
    this.position = position;
  }
}

/** Parentheses, function calls, signs and powers all count as one level each. */
const MAX_DEPTH = 100;

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

interface MathFunction {
  minArgs: number;
  maxArgs: number;
  apply: (...args: number[]) => number;
}

const unary = (apply: (x: number) => number): MathFunction => ({ minArgs: 1, maxArgs: 1, apply });
const FUNCTIONS: Record<string, MathFunction> = {
  sqrt: unary(Math.sqrt),
  abs: unary(Math.abs),
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  round: unary(Math.round),
  ln: unary(Math.log),
  log10: unary(Math.log10),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  min: { minArgs: 1, maxArgs: Infinity, apply: Math.min },
  max: { minArgs: 1, maxArgs: Infinity, apply: Math.max },
};

type Token =
  | { kind: "number"; value: number; position: number }
  | { kind: "name"; name: string; position: number }
  | { kind: "symbol"; symbol: string; position: number }
  | { kind: "end"; position: number };

const NUMBER = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const SYMBOLS = "+-*/%^(),";

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expression.length) {
    const ch = expression[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    NUMBER.lastIndex = i;
    NAME.lastIndex = i;
    const number = NUMBER.exec(expression);
    const name = number ? null : NAME.exec(expression);
    if (number) {
      tokens.push({ kind: "number", value: Number(number[0]), position: i });
      i += number[0].length;
    } else if (name) {
      tokens.push({ kind: "name", name: name[0], position: i });
      i += name[0].length;
    } else if (SYMBOLS.includes(ch)) {
      tokens.push({ kind: "symbol", symbol: ch, position: i });
      i++;
    } else {
      throw new ArithmeticError(`unexpected character ${JSON.stringify(ch)} at position ${i}`, "syntax", i);
    }
  }
  tokens.push({ kind: "end", position: expression.length });
  return tokens;
}

/** Evaluates `expression`, or throws ArithmeticError saying where and why it has no value. */
export function evaluateArithmetic(expression: string): number {
  const tokens = tokenize(expression);
  let next = 0;
  let depth = 0;

  const peek = () => tokens[next];
  const isSymbol = (symbol: string) => {
    const token = peek();
    return token.kind === "symbol" && token.symbol === symbol;
  };
  const describe = (token: Token) =>
    token.kind === "end"
      ? "end of expression"
      : token.kind === "number"
        ? "a number"
        : token.kind === "name"
          ? token.name
          : `"${token.symbol}"`;
  const unexpected = (token: Token, wanted: string): never => {
    throw new ArithmeticError(
      `expected ${wanted} but found ${describe(token)} at position ${token.position}`,
      "syntax",
      token.position,
    );
  };
  const expect = (symbol: string) => {
    if (!isSymbol(symbol)) unexpected(peek(), `"${symbol}"`);
    next++;
  };
  const finite = (value: number, position: number) => {
    if (!Number.isFinite(value))
      throw new ArithmeticError(`the result at position ${position} is not a finite number`, "non_finite", position);
    return value;
  };
  const nested = <T>(position: number, parse: () => T): T => {
    if (++depth > MAX_DEPTH)
      throw new ArithmeticError(`the expression nests deeper than ${MAX_DEPTH} levels`, "too_deep", position);
    try {
      return parse();
    } finally {
      depth--;
    }
  };

  function sum(): number {
    let value = product();
    while (isSymbol("+") || isSymbol("-")) {
      const operator = tokens[next++] as Token & { kind: "symbol" };
      const right = product();
      value = finite(operator.symbol === "+" ? value + right : value - right, operator.position);
    }
    return value;
  }

  function product(): number {
    let value = signed();
    while (isSymbol("*") || isSymbol("/") || isSymbol("%")) {
      const operator = tokens[next++] as Token & { kind: "symbol" };
      const right = signed();
      if (operator.symbol !== "*" && right === 0) {
        throw new ArithmeticError(
          `division by zero at position ${operator.position}`,
          "division_by_zero",
          operator.position,
        );
      }
      const result = operator.symbol === "*" ? value * right : operator.symbol === "/" ? value / right : value % right;
      value = finite(result, operator.position);
    }
    return value;
  }

  function signed(): number {
    if (isSymbol("+") || isSymbol("-")) {
      const sign = tokens[next++] as Token & { kind: "symbol" };
      const operand = nested(sign.position, signed);
      return sign.symbol === "-" ? -operand : operand;
    }
    return power();
  }

  function power(): number {
    const base = atom();
    if (!isSymbol("^")) return base;
    const operator = tokens[next++];
    const exponent = nested(operator.position, signed);
    return finite(base ** exponent, operator.position);
  }

  function atom(): number {
    const token = tokens[next];
    if (token.kind === "number") {
      next++;
      return finite(token.value, token.position);
    }
    if (token.kind === "name") {
      next++;
      return isSymbol("(") ? call(token.name, token.position) : constant(token.name, token.position);
    }
    if (isSymbol("(")) {
      next++;
      const value = nested(token.position, sum);
      expect(")");
      return value;
    }
    return unexpected(token, 'a number, a name or "("');
  }

  function constant(name: string, position: number): number {
    if (Object.hasOwn(FUNCTIONS, name))
      throw new ArithmeticError(`${name} is a function; call it as ${name}(...)`, "syntax", position);
    if (!Object.hasOwn(CONSTANTS, name))
      throw new ArithmeticError(`unknown name ${name} at position ${position}`, "unknown_identifier", position);
    return CONSTANTS[name];
  }

  function call(name: string, position: number): number {
    if (!Object.hasOwn(FUNCTIONS, name))
      throw new ArithmeticError(`unknown function ${name} at position ${position}`, "unknown_identifier", position);
    const fn = FUNCTIONS[name];
    expect("(");
    const args = nested(position, () => {
      const list = [sum()];
      while (isSymbol(",")) {
        next++;
        list.push(sum());
      }
      return list;
    });
    expect(")");
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const wanted = fn.maxArgs === Infinity ? `at least ${fn.minArgs}` : `${fn.minArgs}`;
      throw new ArithmeticError(
        `${name} takes ${wanted} argument(s), got ${args.length}`,
        "wrong_argument_count",
        position,
      );
    }
    return finite(fn.apply(...args), position);
  }

  const value = sum();
  if (peek().kind !== "end") unexpected(peek(), "an operator or the end");
  return value;
}
