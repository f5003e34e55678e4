/**
 * A typed client for the Tool Runtime's `/v1` API. It uses only `fetch`, streams and
 * `TextDecoder`, so it runs unchanged in Node 20+, browsers and Workers; `npm run
 * build:client` builds it to ESM with type declarations (`dist/client/`).
 *
 *   const runtime = createClient({ baseUrl: "https://tools.example.com", apiKey });
 *   const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" });
 *   for await (const event of runtime.stream(id)) console.log(event.type, event.data);
 *
 * Failures throw ToolRuntimeError with the TRT-002 `code` (or a local one: `network_error`,
 * `invalid_argument`, `bad_response`), `retryable`, HTTP `status`, `details`, and, when an
 * execution ran, its `execution` view.
 */
import type { ApiKeyRecord, ApprovalDecision, ApprovalState, AuditRecord, DryRunReport, ExecutionRequest, ExecutionSummary, ExecutionView, Page, PendingApproval, ToolOfferingView, ToolVersionView, ToolView } from "../src/contract.ts";
import { localError } from "./errors.ts";
import { followEvents, type StreamEvent, type StreamOptions } from "./events.ts";
import { createTransport } from "./http.ts";

export type { ApiKeyRecord, ApprovalDecision, ApprovalState, AuditRecord, DryRunReport, PendingApproval, ExecutionSummary, ExecutionView, StreamEvent, StreamOptions, ToolOfferingView, ToolVersionView, ToolView };
export { ToolRuntimeError, type LocalErrorCode } from "./errors.ts";
export { explainError, type Explanation } from "./explain.ts";
export { bootstrapOperator, type BootstrapOptions } from "./bootstrap.ts";
export { describeEvent, describeStatus, KNOWN_STATUSES, progressFraction, STATUS_INFO, type StatusInfo, type StatusTone } from "./statuses.ts";

export interface ClientOptions {
  baseUrl: string;
  /** A `trt_…` API key or a JWT; sent as `Authorization: Bearer …`. */
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Consecutive failed reconnects before a stream gives up (default 5). */
  maxReconnects?: number;
}

export type InvokeOptions = Partial<Pick<ExecutionRequest, "version" | "provider" | "context" | "limits" | "idempotency_key">> & {
  traceparent?: string;
};

export interface ListFilters {
  tool?: string;
  status?: string;
  /** ISO 8601 date-times. */
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

export interface ToolSummary {
  name: string;
  active_version: string;
  description: string;
  versions: string[];
  providers: string[];
}

/** A streamed call: its id at once, then its events (resuming after drops). */
export interface StreamedCall {
  execution_id: string;
  events: AsyncGenerator<StreamEvent>;
}

export interface NewKey {
  tenant: string;
  agent: string;
  /** None when left out (least privilege). */
  capabilities?: string[];
  /** The providers the key may reach: none when left out (least privilege); ["*"] for all. */
  channels?: string[];
  role?: "tenant" | "admin" | "approver";
}

export interface ToolRuntimeClient {
  /** Runs a tool and waits for the result (mode sync). */
  invoke(tool: string, input: unknown, options?: InvokeOptions): Promise<ExecutionView>;
  /** Starts a tool and returns at once (mode async). */
  start(tool: string, input: unknown, options?: InvokeOptions): Promise<{ execution_id: string; status: string }>;
  /** Runs a tool and answers with its event stream (TRT-002 §7), ending with `done` or `error`. */
  invokeStream(tool: string, input: unknown, options?: InvokeOptions & Omit<StreamOptions, "after">): Promise<StreamedCall>;
  /** Which provider would serve, the capability decision and the schema verdict; runs nothing. */
  dryRun(tool: string, input: unknown, options?: InvokeOptions): Promise<DryRunReport>;
  get(executionId: string): Promise<ExecutionView>;
  /** The execution's events until its terminal one; resumes after a dropped connection. */
  stream(executionId: string, options?: StreamOptions): AsyncGenerator<StreamEvent>;
  cancel(executionId: string, options?: { grace_ms?: number }): Promise<ExecutionView>;
  /** Approvers: the caller's tenant's calls awaiting approval, oldest first (issue 15). */
  listApprovals(): Promise<{ approvals: PendingApproval[] }>;
  /** Approvers: lets a call awaiting approval run; the reason, if any, goes to the audit record. */
  approve(executionId: string, options?: { reason?: string }): Promise<ExecutionView>;
  /** Approvers: ends a call awaiting approval `failed` (`approval_rejected`); a reason is required. */
  reject(executionId: string, reason: string): Promise<ExecutionView>;
  /** The caller's tenant's executions, newest first. */
  listExecutions(filters?: ListFilters): Promise<Page & { executions: ExecutionSummary[] }>;
  listTools(): Promise<{ registry_version: number; tools: ToolSummary[] }>;
  getTool(name: string): Promise<ToolView>;
  /** Operators: every tenant's audit records. */
  listAudit(filters?: ListFilters & { tenant?: string }): Promise<Page & { records: AuditRecord[] }>;
  /** Operators: `/metrics` in the Prometheus text format. */
  metrics(): Promise<string>;
  /** Operators: a new API key; `key` is in this answer only. */
  createKey(key: NewKey): Promise<ApiKeyRecord & { key: string }>;
  listKeys(tenant?: string): Promise<{ keys: ApiKeyRecord[] }>;
  revokeKey(keyId: string): Promise<unknown>;
}

export function createClient(options: ClientOptions): ToolRuntimeClient {
  const t = createTransport(options.baseUrl, options.apiKey, options.fetch ?? ((input, init) => fetch(input, init)));
  const maxReconnects = options.maxReconnects;
  const id = encodeURIComponent;

  const envelope = (tool: string, input: unknown, mode: "sync" | "async" | "dry_run", o: InvokeOptions = {}, stream = false) => {
    const { traceparent: _t, ...rest } = o;
    return { tool, input, mode, ...(stream ? { stream } : {}), ...rest };
  };
  const headersOf = (o?: InvokeOptions): Record<string, string> => (o?.traceparent ? { traceparent: o.traceparent } : {});
  const query = (f: Record<string, string | number | undefined> = {}) => {
    const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== undefined && v !== "") as [string, string][]);
    const s = q.toString();
    return s ? `?${s}` : "";
  };
  const post = (body: unknown, o?: InvokeOptions) => t.request("POST", "/v1/executions", { body, headers: headersOf(o) });

  return {
    invoke: async (tool, input, o) => t.json<ExecutionView>(await post(envelope(tool, input, "sync", o), o)),
    start: async (tool, input, o) => t.json(await post(envelope(tool, input, "async", o), o)),
    dryRun: async (tool, input, o) => t.json<DryRunReport>(await post(envelope(tool, input, "dry_run", o), o)),
    async invokeStream(tool, input, o = {}) {
      const { signal, onDrop, maxReconnects: max, ...invoke } = o;
      const res = await t.request("POST", "/v1/executions", { body: envelope(tool, input, "sync", invoke, true), headers: { ...headersOf(invoke), accept: "text/event-stream" }, signal });
      if (!res.ok || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) await t.json(res);
      const executionId = res.headers.get("x-execution-id") ?? res.headers.get("location")?.split("/").pop();
      if (!executionId) throw localError("bad_response", "the runtime answered a streamed call without its execution id");
      return { execution_id: executionId, events: followEvents(t, executionId, { signal, onDrop, maxReconnects: max ?? maxReconnects }, res) };
    },
    get: async (executionId) => t.json<ExecutionView>(await t.request("GET", `/v1/executions/${id(executionId)}`)),
    stream: (executionId, o = {}) => followEvents(t, executionId, { maxReconnects, ...o }),
    cancel: async (executionId, o) => t.json<ExecutionView>(await t.request("POST", `/v1/executions/${id(executionId)}/cancel`, { body: o ?? {} })),
    listApprovals: async () => t.json(await t.request("GET", "/v1/approvals")),
    approve: async (executionId, o) => t.json<ExecutionView>(await t.request("POST", `/v1/executions/${id(executionId)}/approve`, { body: o ?? {} })),
    reject: async (executionId, reason) => t.json<ExecutionView>(await t.request("POST", `/v1/executions/${id(executionId)}/reject`, { body: { reason } })),
    listExecutions: async (f) => t.json(await t.request("GET", `/v1/executions${query({ ...f })}`)),
    listTools: async () => t.json(await t.request("GET", "/v1/tools")),
    getTool: async (name) => t.json<ToolView>(await t.request("GET", `/v1/tools/${id(name)}`)),
    listAudit: async (f) => t.json(await t.request("GET", `/v1/audit${query({ ...f })}`)),
    async metrics() {
      const res = await t.request("GET", "/metrics");
      if (!res.ok) await t.json(res);
      return res.text();
    },
    createKey: async (key) => t.json(await t.request("POST", "/v1/admin/keys", { body: key })),
    listKeys: async (tenant) => t.json(await t.request("GET", `/v1/admin/keys${query({ tenant })}`)),
    revokeKey: async (keyId) => t.json(await t.request("DELETE", `/v1/admin/keys/${id(keyId)}`)),
  };
}
