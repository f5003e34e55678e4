/**
 * `Mcp-Param-{Name}` headers on a 2026-07-28 `tools/call` (MCP Streamable HTTP, "Custom Headers
 * from Tool Parameters"): a tool's input schema may mark an argument with `x-mcp-header`, and a
 * client then mirrors that argument's value into the header so that the HTTP layer can route on
 * it without reading the body. The server that lists the tool must check that the two agree:
 * an argument present in the body needs its header, and the header (plain, or `=?base64?…?=`)
 * must decode to the same value. A disagreement is HTTP 400 with JSON-RPC `-32020`
 * (HeaderMismatch), before the call runs (docs/contract.md#mcp).
 *
 * The runtime lists upstream tools with their approved schemas as they are, so it must do this
 * check itself: the SDK does it only for tools registered on its `McpServer`, which the runtime
 * does not use (server.ts). Pure: the schema and the request in, a mismatch (or none) out.
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Where a schema's `x-mcp-header` is not allowed: anything but a chain of `properties`. */
const ELSEWHERE = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
];
const NAMED_SUBSCHEMAS = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

export interface HeaderDeclaration {
  /** The argument's path through `properties`. */
  path: string[];
  /** `{Name}` of `Mcp-Param-{Name}`. */
  name: string;
  type: string;
}

export interface ParamMismatch {
  header: string;
  message: string;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The schema's `x-mcp-header` declarations, or undefined where one breaks the spec's rules
 * (not reached through `properties` alone, not a token, not a string/integer/boolean property,
 * a name repeated in any case): such a tool is one conforming clients leave out, and send no
 * headers for, so there is nothing to check.
 */
export function headerDeclarations(schema: unknown): HeaderDeclaration[] | undefined {
  const found: HeaderDeclaration[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[], reachable: boolean, depth: number): boolean => {
    if (!isNode(node)) return true;
    if (depth > 32) return false;
    if ("x-mcp-header" in node) {
      const name = node["x-mcp-header"];
      const type = node.type;
      if (!reachable || path.length === 0 || typeof name !== "string" || !TOKEN.test(name)) return false;
      if (typeof type !== "string" || !HEADER_TYPES.has(type) || seen.has(name.toLowerCase())) return false;
      seen.add(name.toLowerCase());
      found.push({ path, name, type });
    }
    if (isNode(node.properties))
      for (const [key, child] of Object.entries(node.properties))
        if (!visit(child, [...path, key], reachable, depth + 1)) return false;
    for (const keyword of ELSEWHERE) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED_SUBSCHEMAS.has(keyword) && isNode(sub)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) if (!visit(branch, [...path, `<${keyword}>`], false, depth + 1)) return false;
    }
    return true;
  };
  return visit(schema, [], true, 0) ? found : undefined;
}

/** The first declared argument whose header is missing, malformed or says something else; undefined if all agree. */
export function paramMismatch(
  declarations: readonly HeaderDeclaration[],
  args: unknown,
  headers: Headers,
): ParamMismatch | undefined {
  for (const d of declarations) {
    const header = `Mcp-Param-${d.name}`;
    const value = d.path.reduce<unknown>((node, key) => (isNode(node) ? node[key] : undefined), args);
    const text = textOf(value);
    // An absent or null argument (or one no header can carry) asks for no header; one sent anyway is ignored.
    if (text === undefined) continue;
    const arg = `${d.path.join(".")}=${JSON.stringify(value)}`;
    const sent = headers.get(header);
    if (sent === null) return { header, message: `the body carries ${arg} but the ${header} header is absent` };
    const decoded = decode(sent);
    if (decoded === undefined) return { header, message: `the ${header} header carries an invalid Base64 value` };
    const same = typeof value === "number" && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === text;
    if (!same)
      return {
        header,
        message: `the ${header} header decodes to ${JSON.stringify(decoded)} but the body carries ${arg}`,
      };
  }
  return undefined;
}

/** A primitive argument as header text (MCP's conversion), or undefined for one no header carries. */
function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** A header's value: `=?base64?…?=` decoded (canonical Base64 of UTF-8, else undefined), anything else literally. */
function decode(value: string): string | undefined {
  if (!(value.startsWith("=?base64?") && value.endsWith("?=")) || value.length < 11) return value;
  const b64 = value.slice(9, -2);
  if (!BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}
