/**
 * Validators for schemas known only at run time: an upstream MCP server's tools
 * (docs/contract.md#upstreams). Workers refuse code generation while serving, so ajv cannot compile them;
 * `@cfworker/json-schema` interprets a schema without generating code. Native providers keep
 * their build-time validators (src/pipeline/schema.ts): they are faster and checked in strict mode.
 *
 * Violations come out in the prebuilt validators' shape (`{path, message, keyword}`, the path a
 * JSON Pointer to the offending value), so a caller cannot tell which kind judged its input.
 */
import { Validator, type OutputUnit, type SchemaDraft } from "@cfworker/json-schema";
import type { JsonSchema } from "../../providers/sdk/protocol.ts";
import type { Violation } from "../contract.ts";

/** `$schema` URIs and the draft each names; absent means 2020-12 (MCP 2025-11-25 and later). */
const DRAFTS: Record<string, SchemaDraft> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-04/schema": "4",
};

/**
 * Units that only say "something below failed": their children carry the real violation, so
 * listing both would count one mistake twice (ajv, with allErrors, reports the leaves only).
 */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "$ref",
  "$recursiveRef",
  "$dynamicRef",
  "allOf",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** Per isolate: one validator per schema hash (a schema's identity), built on first use. */
const cache = new Map<string, Validator>();
const CACHE_LIMIT = 500;

export class SchemaUnusableError extends Error {}

/** The draft a schema declares, or 2020-12; an unknown `$schema` cannot be honoured. */
export function draftOf(schema: JsonSchema): SchemaDraft {
  const declared =
    typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : undefined;
  if (declared === undefined) return "2020-12";
  const draft = DRAFTS[declared];
  if (!draft) throw new SchemaUnusableError(`unsupported $schema ${declared}`);
  return draft;
}

/**
 * Builds (and keeps) the validator of `schema`, known by its `hash`. Throws
 * SchemaUnusableError when the schema cannot be used (unknown draft, unresolvable `$ref`):
 * the registry checks that before it serves a tool, so a call never meets it.
 */
export function runtimeValidator(hash: string, schema: JsonSchema): Validator {
  let validator = cache.get(hash);
  if (validator) return validator;
  try {
    const draft = draftOf(schema);
    checkRefs(schema);
    validator = new Validator(schema as never, draft, false);
  } catch (err) {
    throw err instanceof SchemaUnusableError ? err : new SchemaUnusableError((err as Error).message);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(hash, validator);
  return validator;
}

/**
 * Every `$ref` must resolve inside the schema: cfworker finds out only when a value reaches it
 * (mid-call), and nothing is ever fetched from elsewhere. Local pointers must point at
 * something; other references must name an `$id` or `$anchor` the schema itself declares.
 */
function checkRefs(schema: JsonSchema): void {
  const refs: string[] = [];
  const names = new Set<string>();
  const walk = (node: unknown, depth: number) => {
    if (depth > 64 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n) => walk(n, depth + 1));
    const o = node as Record<string, unknown>;
    if (typeof o.$ref === "string") refs.push(o.$ref);
    if (typeof o.$id === "string") names.add(o.$id.replace(/#$/, ""));
    if (typeof o.$anchor === "string") names.add(`#${o.$anchor}`);
    for (const value of Object.values(o)) walk(value, depth + 1);
  };
  walk(schema, 0);
  for (const ref of refs) {
    if (ref === "#" || names.has(ref) || names.has(ref.replace(/#.*$/, ""))) continue;
    if (ref.startsWith("#/") && resolvePointer(schema, ref.slice(1)) !== undefined) continue;
    throw new SchemaUnusableError(`$ref ${ref.slice(0, 100)} does not resolve inside the schema`);
  }
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Violations of `schema` by `value`; empty when valid. */
export function runtimeViolations(value: unknown, hash: string, schema: JsonSchema): Violation[] {
  const result = runtimeValidator(hash, schema).validate(value);
  return result.valid ? [] : toViolations(result.errors);
}

/** cfworker's output units → the runtime's violations (leaves only; missing and extra properties pointed at). */
export function toViolations(units: readonly OutputUnit[]): Violation[] {
  const out: Violation[] = [];
  let extraAt: string | undefined;
  for (const unit of units) {
    const at = pointer(unit.instanceLocation);
    // A refused extra property is reported again by its `false` subschema: once is enough.
    if (extraAt !== undefined && unit.keyword === "false" && at === extraAt) continue;
    extraAt = undefined;
    if (WRAPPERS.has(unit.keyword)) continue;
    if (unit.keyword === "required") {
      out.push({
        path: `${at}/${escape(between(unit.error, 'required property "', '".'))}`,
        message: "is required",
        keyword: "required",
      });
    } else if (unit.keyword === "additionalProperties") {
      extraAt = `${at}/${escape(between(unit.error, 'Property "', '" does not match'))}`;
      out.push({ path: extraAt, message: "is not an allowed property", keyword: "additionalProperties" });
    } else {
      out.push({ path: at, message: unit.error, keyword: unit.keyword });
    }
  }
  return out;
}

/**
 * "#/a/b" → "/a/b"; "#" → "" (the whole value), as ajv's instancePath. cfworker writes the
 * pointer as a URI fragment (percent-encoded); the runtime's paths are plain JSON Pointers.
 */
function pointer(location: string): string {
  const fragment = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

/** The property a cfworker message names, written raw between fixed words (it may hold quotes). */
function between(error: string, before: string, after: string): string {
  const start = error.indexOf(before);
  const end = error.lastIndexOf(after);
  return start >= 0 && end > start ? error.slice(start + before.length, end) : "";
}

function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
