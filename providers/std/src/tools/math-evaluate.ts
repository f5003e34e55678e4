/** `math.evaluate`: arithmetic on a caller's expression, without eval. */
import { defineTool, ToolError } from "../../../sdk/define.ts";
import { ArithmeticError, evaluateArithmetic } from "./arithmetic.ts";

export const mathEvaluate = defineTool<{ expression: string }, { value: number }>({
  name: "math.evaluate",
  version: "1.0.0",
  description:
    "Evaluates an arithmetic expression: + - * / % ^, parentheses, pi, e, and sqrt abs floor ceil round min max ln log10 sin cos tan.",
  input: {
    type: "object",
    properties: {
      expression: { type: "string", maxLength: 1000, description: "For example: 2 * (3 + 4) ^ 2 / sqrt(16)" },
    },
    required: ["expression"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: { value: { type: "number" } },
    required: ["value"],
    additionalProperties: false,
  },
  capability_required: null,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  tags: ["maths"],
  coercion: "strict",
  // Each ArithmeticError kind is a code (declared in the manifest's error_codes, docs/contract.md#errors): callers can tell a typo from a zero divisor.
  error_codes: [
    { code: "syntax", description: "The expression is not well formed; details.position says where." },
    { code: "unknown_identifier", description: "A name that is neither a constant (pi, e) nor a function." },
    { code: "wrong_argument_count", description: "A function called with too few or too many arguments." },
    { code: "division_by_zero", description: "A / or % whose right side is zero." },
    { code: "non_finite", description: "A number or intermediate result too large to represent (or not a number)." },
    { code: "too_deep", description: "Parentheses, calls, signs and powers nested more than 100 levels." },
  ],
  handler: ({ expression }) => {
    try {
      return { value: evaluateArithmetic(expression) };
    } catch (err) {
      // A bad expression is the caller's answer, not a crash of the provider.
      if (err instanceof ArithmeticError) {
        throw new ToolError(err.message, {
          code: err.kind,
          ...(err.position === undefined ? {} : { details: { position: err.position } }),
        });
      }
      throw err;
    }
  },
});
