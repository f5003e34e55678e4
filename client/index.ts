/**
 * A typed client for the Tool Runtime's `/v1` API. It uses only `fetch`, streams and
 * `TextDecoder`, so it runs unchanged in Node 18+, browsers and Workers.
 *
 *   const runtime = createClient({ baseUrl: "https://tools.example.com", apiKey });
 *   const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" });
 *   for await (const event of runtime.stream(id)) console.log(event.type, event.data);
 *
 * Failures throw ToolRuntimeError with the TRT-002 `code`, `retryable`, HTTP `status`,
 * `details`, and, when an execution ran, its `execution` view.
 */
import type { ExecutionRequest, ExecutionView, ToolView } from "../src/contract.ts";
import type { ErrorBody, ErrorCode } from "../src/errors.ts";
import { readSse } from "./sse.ts";

export type { ExecutionView, ToolView };

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** How often `stream` reconnects after a dropped connection before giving up. */
  maxReconnects?: number;
}

export type InvokeOptions = Partial<Pick<ExecutionRequest, "version" | "provider" | "context" | "limits" | "idempotency_key">> & {
  traceparent?: string;
};

export interface StreamEvent {
  seq: number;
  type: "start" | "stdout" | "stderr" | "progress" | "partial" | "log" | "done" | "error";
  at: string;
  data: any;
}

export class ToolRuntimeError extends Error {
  readonly code: ErrorCode | "network_error";
  readonly retryable: boolean;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly execution?: ExecutionView;
  constructor(body: ErrorBody | { code: "network_error"; message: string; retryable: boolean }, status: number, execution?: ExecutionView) {
    super(body.message);
    this.name = "ToolRuntimeError";
    this.code = body.code as ErrorCode | "network_error";
    this.retryable = body.retryable;
    this.status = status;
    this.details = "details" in body ? body.details : undefined;
    this.execution = execution;
  }
}

export interface ToolRuntimeClient {
  /** Runs a tool and waits for the result (mode sync). */
  invoke(tool: string, input: unknown, options?: InvokeOptions): Promise<ExecutionView>;
  /** Starts a tool and returns at once (mode async). */
  start(tool: string, input: unknown, options?: InvokeOptions): Promise<{ execution_id: string; status: string }>;
  get(executionId: string): Promise<ExecutionView>;
  /** The execution's events until its terminal one; resumes after a dropped connection. */
  stream(executionId: string, options?: { after?: number }): AsyncGenerator<StreamEvent>;
  cancel(executionId: string, options?: { grace_ms?: number }): Promise<ExecutionView>;
  listTools(): Promise<{ registry_version: number; tools: { name: string; active_version: string; description: string; versions: string[]; providers: string[] }[] }>;
  getTool(name: string): Promise<ToolView>;
}

export function createClient(options: ClientOptions): ToolRuntimeClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const auth = { authorization: `Bearer ${options.apiKey}` };

  async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    try {
      return await doFetch(`${base}${path}`, {
        method,
        headers: { ...auth, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ToolRuntimeError({ code: "network_error", message: `could not reach the runtime: ${(err as Error).message}`, retryable: true }, 0);
    }
  }

  async function json<T>(res: Response): Promise<T> {
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    if (!res.ok) {
      const execution = body && "execution_id" in body ? (body as ExecutionView) : undefined;
      throw new ToolRuntimeError(body?.error ?? { code: "internal", message: `HTTP ${res.status}`, type: "runtime_error", retryable: res.status >= 500 }, res.status, execution);
    }
    return body as T;
  }

  const envelope = (tool: string, input: unknown, mode: "sync" | "async", o: InvokeOptions = {}) => {
    const { traceparent: _t, ...rest } = o;
    return { tool, input, mode, ...rest };
  };
  const traceHeader = (o?: InvokeOptions): Record<string, string> => (o?.traceparent ? { traceparent: o.traceparent } : {});

  return {
    async invoke(tool, input, o) {
      return json<ExecutionView>(await request("POST", "/v1/executions", envelope(tool, input, "sync", o), traceHeader(o)));
    },
    async start(tool, input, o) {
      return json(await request("POST", "/v1/executions", envelope(tool, input, "async", o), traceHeader(o)));
    },
    async get(id) {
      return json<ExecutionView>(await request("GET", `/v1/executions/${encodeURIComponent(id)}`));
    },
    async cancel(id, o) {
      return json<ExecutionView>(await request("POST", `/v1/executions/${encodeURIComponent(id)}/cancel`, o ?? {}));
    },
    async listTools() {
      return json(await request("GET", "/v1/tools"));
    },
    async getTool(name) {
      return json<ToolView>(await request("GET", `/v1/tools/${encodeURIComponent(name)}`));
    },
    async *stream(id, o) {
      let last = o?.after ?? 0;
      let reconnects = 0;
      const max = options.maxReconnects ?? 5;
      for (;;) {
        let res: Response;
        try {
          res = await request("GET", `/v1/executions/${encodeURIComponent(id)}/stream`, undefined, { accept: "text/event-stream", "last-event-id": String(last) });
        } catch (err) {
          if (++reconnects > max) throw err;
          await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** reconnects)));
          continue;
        }
        if (res.status === 204) return; // nothing after `last`: the terminal event was before it
        if (!res.ok || !res.body) await json(res);
        try {
          for await (const message of readSse(res.body!)) {
            const event = JSON.parse(message.data) as StreamEvent;
            if (event.seq <= last) continue; // never hand the caller an event twice
            last = event.seq;
            yield event;
            if (event.type === "done" || event.type === "error") return;
          }
        } catch {
          // The connection dropped mid-stream: resume after the last event delivered.
        }
        if (++reconnects > max) throw new ToolRuntimeError({ code: "network_error", message: "the stream kept dropping", retryable: true }, 0);
        await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** reconnects)));
      }
    },
  };
}
