/**
 * docs/contract.md#coercion lenient-mode coercion, applied before validation:
 *
 *   integer → number   allowed (JSON has one number type: 42 already satisfies "number")
 *   numeric string → number or integer   rejected (left alone, so validation refuses it)
 *   null → any type with a default       replaced by the default
 *
 * Strict mode (the default) changes nothing. Walks `properties`, `additionalProperties`,
 * `items` and `prefixItems`, and through `$ref` (local: "#" and "#/…" JSON Pointers into the
 * tool's own schema), `allOf`, `anyOf` and `oneOf`. Returns a new value and never mutates the
 * caller's. Pure: no schema is compiled here (Workers refuse code generation), so branch choice is by shape.
 *
 * A null keeps being null when the schema names null as a value (its `type`, `const` or
 * `enum`, through its `$ref`, or in an `anyOf`/`oneOf` branch): the caller may mean it.
 * Otherwise it becomes the schema's own default, else its `$ref` target's, else the one
 * default its branches agree on; branches that disagree leave it null for validation to judge.
 * A non-null value is coerced through the branches its shape fits (type, `const`/`enum`,
 * required and closed properties, property `const`/`enum` as discriminators); when those
 * coerce it differently, it is left as it is.
 */
import type { JsonSchema } from "../../providers/sdk/protocol.ts";
import { branchesOf, fits, resolveLocalRef, SchemaWalk, type SchemaObject } from "./schema-shape.ts";

export function coerceLenient(schema: JsonSchema, value: unknown): unknown {
  return coerce(schema, value, new SchemaWalk(schema), new Set());
}

/**
 * `seenRefs` holds the refs followed at this value's position: a schema that refers to itself
 * without reaching into the value ({"$ref": "#"} at the root) is followed once, not forever.
 */
function coerce(schema: unknown, value: unknown, walk: SchemaWalk, seenRefs: Set<string>): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema) || !walk.step()) return value;
  const s = schema as SchemaObject;
  if (value === null) {
    const found = nullDefault(s, walk, seenRefs);
    return found === NONE ? null : structuredClone(found);
  }
  let out = descend(s, value, walk);
  const target = followRef(s, walk, seenRefs);
  if (target) out = coerce(target.schema, out, walk, target.seen);
  for (const branch of Array.isArray(s.allOf) ? s.allOf : []) out = coerce(branch, out, walk, seenRefs);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(s[key])) out = throughFittingBranches(s[key] as unknown[], out, walk, seenRefs);
  }
  return out;
}

const NONE = Symbol("no default");
/** How deep one search for a null's default nests through refs and branches (the stack's bound; the walk's budget bounds the work). */
const MAX_DEPTH = 64;

function nullDefault(s: SchemaObject, walk: SchemaWalk, seenRefs: Set<string>, depth = 0): unknown {
  if (!walk.step() || depth > MAX_DEPTH || acceptsNull(s, walk, seenRefs)) return NONE;
  if ("default" in s) return s.default;
  const target = followRef(s, walk, seenRefs);
  if (target && typeof target.schema === "object" && target.schema !== null) {
    const found = nullDefault(target.schema as SchemaObject, walk, target.seen, depth + 1);
    if (found !== NONE) return found;
  }
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const defaults = branchesOf(s[key], walk)
      .map((b) => nullDefault(b, walk, seenRefs, depth + 1))
      .filter((d) => d !== NONE);
    const first = defaults[0];
    if (defaults.length > 0 && defaults.every((d) => sameJson(d, first))) return first;
  }
  return NONE;
}

/** Null is one of the values the schema names: itself, through its `$ref`, or in an `anyOf`/`oneOf` branch. */
function acceptsNull(s: SchemaObject, walk: SchemaWalk, seenRefs: Set<string>, depth = 0): boolean {
  if (admitsNull(s)) return true;
  if (!walk.step() || depth > MAX_DEPTH) return false;
  const target = followRef(s, walk, seenRefs);
  if (
    target &&
    typeof target.schema === "object" &&
    target.schema !== null &&
    acceptsNull(target.schema as SchemaObject, walk, target.seen, depth + 1)
  )
    return true;
  return [...branchesOf(s.anyOf, walk), ...branchesOf(s.oneOf, walk)].some((b) =>
    acceptsNull(b, walk, seenRefs, depth + 1),
  );
}

/** The schema a `$ref` names, unless it was already followed at this position. */
function followRef(
  s: SchemaObject,
  walk: SchemaWalk,
  seenRefs: Set<string>,
): { schema: unknown; seen: Set<string> } | undefined {
  if (typeof s.$ref !== "string" || seenRefs.has(s.$ref)) return undefined;
  const schema = resolveLocalRef(walk.root, s.$ref);
  return schema === undefined ? undefined : { schema, seen: new Set(seenRefs).add(s.$ref) };
}

/** Object members and array items, by the keywords of this schema itself. */
function descend(s: SchemaObject, value: unknown, walk: SchemaWalk): unknown {
  if (Array.isArray(value)) {
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    const items = s.items;
    const rest = typeof items === "object" && items !== null && !Array.isArray(items) ? items : undefined;
    if (prefix.length === 0 && rest === undefined) return value;
    return value.map((v, i) =>
      i < prefix.length ? coerce(prefix[i], v, walk, new Set()) : rest ? coerce(rest, v, walk, new Set()) : v,
    );
  }
  if (value !== null && typeof value === "object") {
    const props =
      typeof s.properties === "object" && s.properties !== null ? (s.properties as Record<string, unknown>) : {};
    // Keys a patternProperties schema would govern are not guessed at: no additionalProperties then.
    const extra =
      typeof s.additionalProperties === "object" && s.additionalProperties !== null && s.patternProperties === undefined
        ? s.additionalProperties
        : undefined;
    if (Object.keys(props).length === 0 && extra === undefined) return value;
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const key of Object.keys(out)) {
      const sub = Object.hasOwn(props, key) ? props[key] : extra;
      if (sub !== undefined) out[key] = coerce(sub, out[key], walk, new Set());
    }
    return out;
  }
  return value;
}

/** Coerces through the branches the value's shape fits; different results leave it as it was. */
function throughFittingBranches(branches: unknown[], value: unknown, walk: SchemaWalk, seenRefs: Set<string>): unknown {
  const results = branches.filter((b) => fits(b, value, walk)).map((b) => coerce(b, value, walk, seenRefs));
  if (results.length === 0) return value;
  return results.every((r) => sameJson(r, results[0])) ? results[0] : value;
}

/** The schema itself names null as a value. */
function admitsNull(s: SchemaObject): boolean {
  return (
    s.type === "null" ||
    (Array.isArray(s.type) && s.type.includes("null")) ||
    ("const" in s && s.const === null) ||
    (Array.isArray(s.enum) && s.enum.includes(null))
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
