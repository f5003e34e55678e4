/**
 * The building blocks of the document's component schemas (src/openapi/schemas.ts): `ref`, the
 * scalar types, closed objects, and the enumerations more than one schema uses.
 *
 * Request defaults are said in descriptions, not with `default`: openapi-typescript (as
 * generators commonly do) types a property with a default as always present.
 */
import { EXECUTION_STATUSES as STATUSES } from "../contract.ts";

/** docs/contract.md#statuses, with approval before it (docs/contract.md#approvals): one list, in src/contract.ts. */
export const EXECUTION_STATUSES: string[] = [...STATUSES];
export const TRUST = ["system", "verified", "community"];
export const BREAKER = ["closed", "open", "half_open"];

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** Any JSON value (a tool's input or output: its own schema is in GET /v1/tools/{name}). */
export const anyJson = {};
/** An object with members the runtime does not fix (a JSON Schema, error details, a context). */
export const freeObject = { type: "object", additionalProperties: true };
export const str = { type: "string" };
export const int = { type: "integer" };
export const num = { type: "number" };
export const bool = { type: "boolean" };
export const time = { type: "string", format: "date-time" };
export const nullable = (schema: { type: string; [k: string]: unknown }) => ({
  ...schema,
  type: [schema.type, "null"],
});
export const strings = { type: "array", items: str };
export const oneOfStrings = (values: readonly string[]) => ({ type: "string", enum: values });

/** A closed object: every property listed; `required` names those always present. */
export function object(
  properties: Record<string, object>,
  required: string[] = Object.keys(properties),
  description?: string,
) {
  return { type: "object", ...(description ? { description } : {}), required, properties, additionalProperties: false };
}

/** The list's members, each one line; `optional` are left out of `required`. */
export const all = (properties: Record<string, object>, optional: string[] = []) =>
  object(
    properties,
    Object.keys(properties).filter((k) => !optional.includes(k)),
  );
