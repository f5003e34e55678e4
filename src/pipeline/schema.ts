/**
 * Stage 4 (docs/contract.md#validation): schema validation with validators prebuilt at build time: Workers refuse code generation at run time.
 * Input failures are `invalid_input` listing every violation with its JSON Pointer path;
 * output failures (stage 7) are `invalid_output`. Schemas that were not built — only an
 * upstream MCP server's, which arrive at run time — are interpreted without
 * code generation (src/schema/runtime-validator.ts); the registry serves no other offering
 * whose schemas were not built.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import type { CoercionMode, JsonSchema } from "../../providers/sdk/protocol.ts";
import type { Violation } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
// The shipped providers' validators (package.json `imports`); development's config aliases this
// to the module that also holds the lab providers' (scripts/build-schemas.ts).
import { validators as prebuilt } from "#validators";
import { coerceLenient } from "../schema/coercion.ts";
import { runtimeViolations } from "../schema/runtime-validator.ts";

export type { Violation };

export type ValidatorTable = Readonly<Record<string, ValidateFunction>>;

export function hasValidator(hash: string, table: ValidatorTable = prebuilt): boolean {
  return Object.hasOwn(table, hash);
}

/** Returns the input to dispatch (coerced in lenient mode) or throws `invalid_input`. */
export function validateInput(
  input: unknown,
  schema: { hash: string; schema: JsonSchema; coercion: CoercionMode },
  table: ValidatorTable = prebuilt,
): unknown {
  const value = schema.coercion === "lenient" ? coerceLenient(schema.schema, input) : input;
  const violations = check(value, schema.hash, table, schema.schema);
  if (violations.length > 0) {
    throw new RuntimeError("invalid_input", describe("input", violations), {
      violations: violations.slice(0, 50),
      ...(violations.length > 50 ? { violations_total: violations.length } : {}),
    });
  }
  return value;
}

/** Violations of the output schema; empty when the output is valid. `schema` only for run-time schemas. */
export function checkOutput(
  output: unknown,
  hash: string,
  table: ValidatorTable = prebuilt,
  schema?: JsonSchema,
): Violation[] {
  return check(output, hash, table, schema);
}

function check(value: unknown, hash: string, table: ValidatorTable, schema?: JsonSchema): Violation[] {
  const validate = table[hash];
  if (!validate) {
    if (schema !== undefined) return runtimeViolations(value, hash, schema);
    // The registry only serves offerings whose schemas were prebuilt; reaching this is a bug.
    throw new RuntimeError("internal", "no prebuilt validator for this schema", { schema_hash: hash });
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map(toViolation);
}

function toViolation(e: ErrorObject): Violation {
  // ajv reports a missing property at its parent; point at the property itself.
  const path =
    e.keyword === "required"
      ? `${e.instancePath}/${escape(String(e.params.missingProperty))}`
      : e.keyword === "additionalProperties"
        ? `${e.instancePath}/${escape(String(e.params.additionalProperty))}`
        : e.instancePath;
  const message =
    e.keyword === "additionalProperties"
      ? "is not an allowed property"
      : e.keyword === "required"
        ? "is required"
        : (e.message ?? "is invalid");
  return { path, message, keyword: e.keyword };
}

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function describe(what: string, violations: Violation[]): string {
  const first = violations[0];
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : "";
  return `${what} failed schema validation: ${first.path || "(root)"} ${first.message}${more}`;
}
