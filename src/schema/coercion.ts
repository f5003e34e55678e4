/**
 * AIOS §5.4 lenient-mode coercion, applied before validation:
 *
 *   integer → number   allowed (JSON has one number type: 42 already satisfies "number")
 *   numeric string → number or integer   rejected (left alone, so validation refuses it)
 *   null → any type with a default       replaced by the default
 *
 * Strict mode (the default) changes nothing. Walks `properties` and `items` of object and
 * array schemas; returns a new value and never mutates the caller's.
 */
import type { JsonSchema } from "../../providers/sdk/protocol.ts";

type SchemaObject = { [key: string]: unknown };

export function coerceLenient(schema: JsonSchema, value: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return value;
  const s = schema as SchemaObject;
  if (value === null && "default" in s && !allowsNull(s)) return structuredClone(s.default);
  if (Array.isArray(value)) {
    const items = s.items;
    if (typeof items !== "object" || items === null || Array.isArray(items)) return value;
    return value.map((v) => coerceLenient(items as JsonSchema, v));
  }
  if (value !== null && typeof value === "object") {
    const props = s.properties;
    if (typeof props !== "object" || props === null) return value;
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, sub] of Object.entries(props as Record<string, JsonSchema>)) {
      if (Object.hasOwn(out, key)) out[key] = coerceLenient(sub, out[key]);
    }
    return out;
  }
  return value;
}

/** A schema that accepts null keeps it: the caller meant null, not "use the default". */
function allowsNull(s: SchemaObject): boolean {
  return s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"));
}
