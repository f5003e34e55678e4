/**
 * Examples of the registry's view of tools (src/openapi/paths-callers.ts).
 */
import { type OperationExamples, v } from "./examples-shared.ts";

const offering = {
  provider: "std",
  trust: "system",
  p50_ms: 3.2,
  error_rate: 0,
  samples: 120,
  breaker: "closed",
  alive: true,
  disabled: false,
  capability_required: null,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  coercion: "strict",
  partial_merge: "replace",
  error_codes: [{ code: "syntax", description: "The expression does not parse." }],
  tags: ["maths"],
  input_schema: {
    type: "object",
    properties: { expression: { type: "string", maxLength: 1000 } },
    required: ["expression"],
    additionalProperties: false,
  },
  output_schema: { type: "object", properties: { value: { type: "number" } }, required: ["value"] },
};

export const toolExamples: Record<string, OperationExamples> = {
  listTools: {
    responses: {
      "200": v({
        registry_version: 12,
        tools: [
          {
            name: "math.evaluate",
            active_version: "1.0.0",
            description: "Evaluates an arithmetic expression.",
            versions: ["1.0.0"],
            providers: ["std"],
            tags: ["maths"],
          },
          {
            name: "text.stats",
            active_version: "1.1.0",
            description: "Counts the words, lines and characters of a text.",
            versions: ["1.0.0", "1.1.0"],
            providers: ["std", "community"],
            tags: ["text"],
          },
        ],
      }),
    },
  },
  getTool: {
    responses: {
      "200": v({
        name: "math.evaluate",
        active_version: "1.0.0",
        description: "Evaluates an arithmetic expression.",
        versions: [
          {
            version: "1.0.0",
            active: true,
            description: "Evaluates an arithmetic expression.",
            deprecation: null,
            providers: [offering],
          },
        ],
      }),
    },
  },
};
