/**
 * A tool's definition as an upstream lists it, and its identity (docs/contract.md#upstreams): the
 * SHA-256 of the canonical JSON of its name, description, schemas and annotations. A listing
 * whose hash differs from the approved one is a changed definition (a "rug pull" until an
 * operator says otherwise). Pure.
 */
import type { JsonSchema, Value } from "../../providers/sdk/protocol.ts";
import { canonicalJson } from "../schema/schema-hash.ts";
import { sha256Hex } from "../schema/sha256.ts";

export interface ToolDefinition {
  name: string;
  description: string | null;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | null;
  annotations: { [key: string]: Value } | null;
}

/** One difference between two definitions: where (a JSON Pointer into the definition), and both sides (absent: null). */
export interface DefinitionChange {
  path: string;
  before: Value;
  after: Value;
}

/** The parts of an MCP `Tool` that make its definition; anything else (`_meta`, `title`, `icons`) is not part of the contract. */
export function definitionOf(tool: {
  name: string;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}): ToolDefinition {
  return {
    name: tool.name,
    description: typeof tool.description === "string" ? tool.description : null,
    inputSchema: (isObject(tool.inputSchema) ? tool.inputSchema : { type: "object" }) as JsonSchema,
    outputSchema: isObject(tool.outputSchema) ? (tool.outputSchema as JsonSchema) : null,
    annotations: isObject(tool.annotations) ? (tool.annotations as { [key: string]: Value }) : null,
  };
}

export async function definitionHash(definition: ToolDefinition): Promise<string> {
  return sha256Hex(canonicalJson(definition));
}

/** Every leaf that differs, in a stable order; objects are compared member by member, anything else whole. */
export function diffDefinitions(before: ToolDefinition, after: ToolDefinition): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  walk(before, after, "", out);
  return out;
}

const MAX_CHANGES = 200;

function walk(a: unknown, b: unknown, path: string, out: DefinitionChange[]): void {
  if (out.length >= MAX_CHANGES) return;
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      walk(a[key], b[key], `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, out);
    }
    return;
  }
  if (canonicalJson(a ?? null) !== canonicalJson(b ?? null))
    out.push({ path, before: (a ?? null) as Value, after: (b ?? null) as Value });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
