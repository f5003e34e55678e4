/**
 * Reading a JSON Schema without compiling it (nothing is compiled at run time: Workers refuse code generation):
 * local `$ref` resolution, and whether a value's shape fits a schema closely enough to choose
 * among `anyOf`/`oneOf` branches for lenient coercion (src/schema/coercion.ts). `fits` is not
 * validation: it looks only at types, `const`/`enum`, required and closed properties and the
 * properties' `const`/`enum` (the usual discriminators); the prebuilt validator decides after.
 */
import type { JsonSchema } from "../../providers/sdk/protocol.ts";

export type SchemaObject = { [key: string]: unknown };

/** How many `$ref`s one chain follows, and how deep `fits` nests, before it stops looking. */
const MAX_HOPS = 32;

/**
 * One walk over a schema for one value: the document its refs point into, and a budget of
 * schema nodes it may visit, so that a schema whose combinators refer back to themselves
 * (`{"anyOf": [{"$ref": "#/$defs/a"}]}` inside `a`) ends in bounded time whatever its shape.
 * An exhausted walk stops looking: nothing more is coerced, nothing more is ruled out.
 */
export class SchemaWalk {
  static readonly BUDGET = 10_000;
  readonly root: JsonSchema;
  #left: number;
  constructor(root: JsonSchema, budget = SchemaWalk.BUDGET) {
    this.root = root;
    this.#left = budget;
  }
  /** Takes one visit from the budget; false once it is spent. */
  step(): boolean {
    return this.#left-- > 0;
  }
}

/**
 * The schema a local `$ref` names: "#" is the root, "#/a/b" a JSON Pointer (RFC 6901, in a
 * URI fragment: percent-decoded, then ~1 → "/" and ~0 → "~"). Anything else is undefined.
 */
export function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The schema objects of a combinator's list, each `$ref` followed to its target. */
export function branchesOf(list: unknown, walk: SchemaWalk): SchemaObject[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((b) => {
    const chain = refChain(b, walk.root);
    // A branch that is only a reference is its target; one with siblings keeps them first.
    return chain.length === 0 ? [] : [Object.assign({}, ...chain.slice().reverse()) as SchemaObject];
  });
}

/** The schema, then what its `$ref` names, and so on (objects only, at most MAX_HOPS). */
function refChain(schema: unknown, root: JsonSchema): SchemaObject[] {
  const chain: SchemaObject[] = [];
  let node = schema;
  while (typeof node === "object" && node !== null && !Array.isArray(node) && chain.length < MAX_HOPS) {
    const s = node as SchemaObject;
    if (chain.includes(s)) break;
    chain.push(s);
    node = typeof s.$ref === "string" ? resolveLocalRef(root, s.$ref) : undefined;
  }
  return chain;
}

/** True when nothing in the value's shape rules the schema out (see the file's comment). */
export function fits(schema: unknown, value: unknown, walk: SchemaWalk, depth = 0): boolean {
  if (schema === false) return false;
  if (typeof schema !== "object" || schema === null || depth > MAX_HOPS || !walk.step()) return true;
  for (const s of refChain(schema, walk.root)) {
    if (!fitsHere(s, value, walk, depth)) return false;
  }
  return true;
}

function fitsHere(s: SchemaObject, value: unknown, walk: SchemaWalk, depth: number): boolean {
  if (s.type !== undefined && !(Array.isArray(s.type) ? s.type : [s.type]).some((t) => typeMatches(t, value)))
    return false;
  if ("const" in s && !same(s.const, value)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, value))) return false;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (Array.isArray(s.required) && !s.required.every((k) => typeof k === "string" && Object.hasOwn(v, k)))
      return false;
    const props =
      typeof s.properties === "object" && s.properties !== null ? (s.properties as Record<string, unknown>) : {};
    for (const [key, sub] of Object.entries(props)) {
      // A null member may still become its default: it rules nothing out.
      if (!Object.hasOwn(v, key) || v[key] === null || typeof sub !== "object" || sub === null) continue;
      const p = sub as SchemaObject;
      if ("const" in p && !same(p.const, v[key])) return false;
      if (Array.isArray(p.enum) && !p.enum.some((e) => same(e, v[key]))) return false;
    }
    if (
      s.additionalProperties === false &&
      s.patternProperties === undefined &&
      Object.keys(v).some((k) => !Object.hasOwn(props, k))
    )
      return false;
  }
  if (Array.isArray(s.allOf) && !s.allOf.every((b) => fits(b, value, walk, depth + 1))) return false;
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (Array.isArray(list) && list.length > 0 && !list.some((b) => fits(b, value, walk, depth + 1))) return false;
  }
  return true;
}

function typeMatches(type: unknown, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return true;
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
