/**
 * `lab.defaults`: a lenient tool (docs/contract.md#coercion) whose defaults sit behind `$ref`, `anyOf` and
 * `oneOf`. It answers with the input exactly as its handler received it, so a caller (and the
 * end-to-end tests) can see what lenient coercion made of a null. Free of platform imports:
 * scripts/build-schemas.ts loads it under Node to prebuild its validators.
 */
import { defineTool } from "../../../sdk/define.ts";

const input = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  $defs: {
    lang: { type: "string", enum: ["en", "fr", "de"], default: "en" },
  },
  properties: {
    text: { type: "string", maxLength: 1000 },
    /** null → "en" through a $ref (the example of docs/contract.md#coercion). */
    lang: { $ref: "#/$defs/lang" },
    /** null → "plain": the only default among the branches. */
    format: {
      anyOf: [
        { type: "string", enum: ["plain", "markdown"], default: "plain" },
        { type: "integer", minimum: 1, maximum: 3 },
      ],
    },
    /** A null inside the branch the object's `kind` selects takes that branch's default. */
    target: {
      oneOf: [
        {
          type: "object",
          additionalProperties: false,
          required: ["kind"],
          properties: {
            kind: { const: "file" },
            path: { type: "string", maxLength: 200 },
            lang: { $ref: "#/$defs/lang" },
          },
        },
        {
          type: "object",
          additionalProperties: false,
          required: ["kind"],
          properties: { kind: { const: "inline" }, width: { type: "integer", minimum: 10, maximum: 200, default: 80 } },
        },
      ],
    },
    /** Admits null: a null stays null although a default is written. */
    note: { anyOf: [{ type: "string", maxLength: 100 }, { type: "null" }], default: "none" },
  },
} as const;

export const labDefaults = defineTool({
  name: "lab.defaults",
  version: "1.0.0",
  description:
    "Lenient: answers {received} with its input after coercion (null → defaults behind $ref, anyOf and oneOf).",
  input,
  output: {
    type: "object",
    required: ["received"],
    additionalProperties: false,
    properties: { received: { type: "object" } },
  },
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  coercion: "lenient",
  handler: (received: Record<string, unknown>) => ({ received }),
});
