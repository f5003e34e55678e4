/**
 * Progressive discovery (docs/contract.md#bundles): a bundle with `discovery: "search"` lists two
 * tools instead of its whole catalog, so a big catalog does not fill a model's context.
 *
 *   search_tools  {query, limit?}: the bundle's tools this caller may see, ranked by words
 *                 (tool-search.ts), answered as `{tools: [...]}` in the shapes `tools/list`
 *                 gives them (tools.ts); one request token, as a `tools/list` pays
 *   call_tool     {name, arguments?}: the named tool, called exactly as `tools/call` calls it
 *                 (call.ts): the same bundle limit and refusals, the same result, and the
 *                 request's `_meta` (limits, version, idempotency key, progress token, trace)
 *
 * A direct `tools/call` of one of the bundle's tools still works: the list is short, not the rules.
 */
import { ProtocolError, type CallToolResult, type ServerContext, type Tool } from "@modelcontextprotocol/server";
import { RuntimeError } from "../errors.ts";
import { chargeRequests } from "../policy/request-rate.ts";
import { callTool, noteRetryAfter, type CallParams } from "./call.ts";
import { refusalError } from "./errors.ts";
import type { McpScope } from "./scope.ts";
import { rankTools } from "./tool-search.ts";
import { listTools } from "./tools.ts";

export const SEARCH_TOOLS = "search_tools";
export const CALL_TOOL = "call_tool";

/** Whether the request finds its tools by search: every bundle in view asks for it (at `/mcp/{bundle}`, that one). */
export function searches(scope: McpScope): boolean {
  return !!scope.bundles?.length && scope.bundles.every((b) => b.discovery === "search");
}

/** The two tools a search bundle lists. */
export function discoveryTools(scope: McpScope, era: "modern" | "legacy"): Tool[] {
  const about = scope.bundles!.length === 1 ? scope.bundles![0].description : null;
  const search: Tool = {
    name: SEARCH_TOOLS,
    title: "Search tools",
    description:
      "Finds the tools of this server by what they do (words of their names, descriptions, tags and inputs), best match " +
      "first, with their input schemas. Then call one with call_tool." +
      (about ? ` The tools here: ${about}` : ""),
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, description: "Words saying what the tool should do" },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5, description: "How many tools, at most" },
      },
      required: ["query"],
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
  const call: Tool = {
    name: CALL_TOOL,
    title: "Call tool",
    description:
      "Calls a tool that search_tools found, by its name, with its arguments; answers what that tool answers.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool's name, as search_tools gave it" },
        arguments: { type: "object", description: "The tool's arguments, as its inputSchema says" },
      },
      required: ["name"],
    },
  };
  // 2025-11-25 says whether a task may run a tool: a search never is one; a call is as its tool is.
  if (era === "legacy")
    return [
      { ...search, execution: { taskSupport: "forbidden" } },
      { ...call, execution: { taskSupport: "optional" } },
    ];
  return [search, call];
}

/** A `tools/call` at a search bundle: one of the two, or a direct call of a bundle's tool. */
export async function callInSearch(
  scope: McpScope,
  era: "modern" | "legacy",
  params: CallParams,
  ctx: ServerContext,
): Promise<CallToolResult | Record<string, unknown>> {
  const args = params.arguments ?? {};
  if (params.name === CALL_TOOL) {
    const { name, arguments: input } = args;
    if (typeof name !== "string") throw invalidInput("/name", "type", "must be string");
    if (input !== undefined && (input === null || typeof input !== "object" || Array.isArray(input)))
      throw invalidInput("/arguments", "type", "must be object");
    return callTool(scope, era, { ...params, name, arguments: input as Record<string, unknown> | undefined }, ctx);
  }
  if (params.name !== SEARCH_TOOLS) return callTool(scope, era, params, ctx);

  if (era === "legacy" && params.task !== undefined)
    throw new ProtocolError(-32601, `tool ${SEARCH_TOOLS} does not run as a task (taskSupport "forbidden")`);
  const { query, limit = 5 } = args;
  if (typeof query !== "string" || query.trim() === "")
    throw invalidInput("/query", "minLength", "must be a non-empty string");
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 20)
    throw invalidInput("/limit", "maximum", "must be an integer from 1 to 20");
  try {
    await chargeRequests(scope.env, scope.caller, scope.waitUntil);
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    noteRetryAfter(scope, err.toBody());
    throw refusalError(err.toBody());
  }
  const tools = rankTools(await listTools(scope, era), query, limit as number).map(
    ({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    }),
  );
  return { content: [{ type: "text", text: JSON.stringify({ tools }) }], structuredContent: { tools } };
}

/** Arguments of the two tools that their schema refuses, refused as a tool's input is (`invalid_input`). */
function invalidInput(path: string, keyword: string, message: string): ProtocolError {
  return refusalError(
    new RuntimeError("invalid_input", `input failed schema validation: ${path} ${message}`, {
      violations: [{ path, message, keyword }],
    }).toBody(),
  );
}
