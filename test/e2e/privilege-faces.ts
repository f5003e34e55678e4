/**
 * The privilege matrix's callers (test/e2e/privilege-matrix.test.ts): one request as one key,
 * on each face the matrix covers, reduced to what the matrix judges — allowed, or refused with
 * a status and an error code (and the `details.reason` of a 403).
 */
import { decode } from "@msgpack/msgpack";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { baseUrl, bearer } from "./http.ts";
import { modern } from "./mcp.ts";

/** What a request came to: `status` is HTTP's, or the face's own mapped onto HTTP's (404 hidden, 403 refused). */
export interface Verdict {
  status: number;
  code?: string;
  reason?: string;
  body?: any;
}

/** One REST request, JSON or MessagePack; a stream is judged by its head and then closed. */
export async function rest(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  format: "json" | "msgpack" = "json",
): Promise<Verdict> {
  const headers: Record<string, string> = {
    ...(key ? bearer(key) : {}),
    accept: format === "msgpack" ? "application/msgpack" : "application/json, text/event-stream",
  };
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers["content-type"] = "application/json";
  }
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}${path}`, { ...init, signal: abort.signal });
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    abort.abort();
    return { status: res.status };
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  let parsed: any;
  if (bytes.length > 0)
    parsed = res.headers.get("content-type")?.includes("msgpack")
      ? decode(bytes)
      : tryJson(new TextDecoder().decode(bytes));
  return { status: res.status, code: parsed?.error?.code, reason: parsed?.error?.details?.reason, body: parsed };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const CONNECT_STATUS: Partial<Record<Code, number>> = {
  [Code.NotFound]: 404,
  [Code.PermissionDenied]: 403,
  [Code.Unauthenticated]: 401,
  [Code.InvalidArgument]: 400,
};

/** Connect (JSON): GetExecution or Cancel as `key`. */
export async function connectCall(
  key: string,
  method: "getExecution" | "cancel",
  executionId: string,
): Promise<Verdict> {
  const withKey = [
    (next: any) => (req: any) => (req.header.set("authorization", bearer(key).authorization), next(req)),
  ];
  const client = createClient(ToolRuntimeService, createConnectTransport({ baseUrl, interceptors: withKey }));
  try {
    const body =
      method === "getExecution"
        ? await client.getExecution({ executionId })
        : await client.cancel({ executionId, graceMs: 0 });
    return { status: 200, body };
  } catch (err) {
    if (!(err instanceof ConnectError)) throw err;
    return { status: CONNECT_STATUS[err.code] ?? 500, code: Code[err.code], reason: err.rawMessage };
  }
}

/**
 * MCP tasks (2026-07-28 extension): tasks/get or tasks/cancel as `key`. An unknown task is
 * -32602, the same for one the caller may not see (404 here).
 */
export async function mcpTask(key: string, method: "tasks/get" | "tasks/cancel", taskId: string): Promise<Verdict> {
  const answer = await modern(method, { taskId }, { key, tasks: true });
  if (answer.body?.error)
    return {
      status: answer.body.error.code === -32602 ? 404 : 500,
      code: String(answer.body.error.code),
      reason: answer.body.error.message,
    };
  return { status: answer.status, body: answer.body?.result };
}
