/**
 * An execution's end as an MCP `CallToolResult` (server/tools §Tool Result): the same shape for
 * an inline call, a task's inlined result (2026-07-28 `tasks/get`) and `tasks/result` (2025-11-25).
 *
 *   succeeded   structuredContent: the output; content: the output as JSON text, or, for an
 *               output that is MCP content blocks (`{content: [...]}`, an upstream tool's
 *               without an output schema), those blocks as they came
 *   otherwise   isError: true; structuredContent: {error, partial_output?, cancellation?}; the
 *               same as JSON text — the tool ran, so it is a tool execution error, not a
 *               JSON-RPC error (server/tools §Error Handling)
 *
 * `_meta["io.tool-runtime/execution_id"]` names the execution, readable at /v1/executions/{id}.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ErrorBody, ExecutionStatus, ExecutionView, Value } from "../contract.ts";
import { toJson } from "../codec/bytes.ts";

export const META_EXECUTION_ID = "io.tool-runtime/execution_id";
export const META_STATUS = "io.tool-runtime/status";

/** What a result is built from: a view, or a terminal stream event's data with its id. */
export interface Ending {
  execution_id: string;
  status: ExecutionStatus;
  output?: Value;
  error?: ErrorBody;
  partial_output?: Value;
  cancellation?: ExecutionView["cancellation"];
}

export function callToolResult(end: Ending): CallToolResult {
  const meta = { [META_EXECUTION_ID]: end.execution_id, [META_STATUS]: end.status };
  if (end.status === "succeeded") {
    const output = plain(end.output);
    // structuredContent is an object (MCP): a tool whose output is not one has it as `value`.
    const structured = isObject(output) ? output : { value: output };
    return {
      content: blocksOf(output) ?? [{ type: "text", text: JSON.stringify(output ?? null) }],
      structuredContent: structured,
      _meta: meta,
    };
  }
  const failure = plain({
    error: end.error ?? {
      code: "internal",
      message: `the execution ended ${end.status} without an error`,
      type: "runtime_error",
      retryable: false,
    },
    ...(end.partial_output !== undefined ? { partial_output: end.partial_output } : {}),
    ...(end.cancellation ? { cancellation: end.cancellation } : {}),
  }) as Record<string, unknown>;
  return {
    content: [{ type: "text", text: JSON.stringify(failure) }],
    structuredContent: failure,
    isError: true,
    _meta: meta,
  };
}

/** The ending a terminal event (`done` / `error`, src/execution/events.ts) describes. */
export function endingOfEvent(executionId: string, type: string, data: Value): Ending {
  const d = (isObject(data) ? data : {}) as Record<string, unknown>;
  if (type === "done") return { execution_id: executionId, status: "succeeded", output: d.output as Value };
  return {
    execution_id: executionId,
    status: (d.status as ExecutionStatus) ?? "failed",
    error: d.error as ErrorBody | undefined,
    partial_output: d.partial_output as Value | undefined,
    cancellation: d.cancellation as ExecutionView["cancellation"],
  };
}

/** JSON as MCP carries it: bytes become {"$base64": …} as everywhere the runtime writes JSON. */
function plain(value: unknown): Value | undefined {
  return value === undefined ? undefined : (JSON.parse(toJson(value)) as Value);
}

/** The content blocks an output of exactly `{content: [...]}` carries (an image stays an image). */
function blocksOf(output: Value | undefined): CallToolResult["content"] | undefined {
  const blocks = isObject(output) && Object.keys(output).length === 1 ? output.content : undefined;
  return Array.isArray(blocks) && blocks.every((b) => isObject(b) && BLOCK_TYPES.has(b.type as string))
    ? (blocks as CallToolResult["content"])
    : undefined;
}
const BLOCK_TYPES = new Set(["text", "image", "audio", "resource", "resource_link"]);

function isObject(v: unknown): v is Record<string, Value> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);
}
