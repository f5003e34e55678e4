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
  coercion: "strict",
  handler: ({ expression }) => {
    try {
      return { value: evaluateArithmetic(expression) };
    } catch (err) {
      // A bad expression is the caller's answer, not a crash of the provider.
      if (err instanceof ArithmeticError) {
        throw new ToolError(err.message, err.position === undefined ? {} : { details: { position: err.position } });
      }
      throw err;
    }
  },
});
