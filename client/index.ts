/**
 * A typed client for the Tool Runtime's `/v1` API. It uses only `fetch`, Web streams and
 * `TextDecoder` (plus `eventsource-parser`), so it runs unchanged in Node 20+, browsers and
 * Workers; `npm run build:client` builds it to ESM with type declarations (`client/dist/`).
 *
 *   const runtime = createClient({ baseUrl: "https://tools.example.com", apiKey });
 *   const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" }, { signal, timeoutMs: 10_000 });
 *   for await (const event of runtime.stream(id)) console.log(event.type, event.data);
 *   for await (const e of runtime.executions.all({ status: "failed" })) console.log(e.execution_id);
 *
 * Every call takes `signal`, `timeoutMs` and `retries` (CallOptions). Failures throw a
 * ToolRuntimeError: a wire error's class says its type (AuthError, RequestError…, see
 * wire-errors.ts) and carries the runtime's `code`; a LocalError carries the client's own
 * (`network_error`, `invalid_argument`, `bad_response`, `client_timeout`).
 */
import type {
  ApiKeyRecord,
  ApprovalDecision,
  ApprovalState,
  AuditReach,
  AuditRecord,
  DryRunReport,
  ExecutionRequest,
  ExecutionSummary,
  ExecutionView,
  Page,
  PendingApproval,
  TenantUsage,
  ToolOfferingView,
  ToolVersionView,
  ToolView,
} from "../src/contract.ts";
import { bundleMethods, type BundleMethods } from "./bundles.ts";
import { openScope, type CallOptions, type RetryPolicy } from "./call-options.ts";
import { localError } from "./errors.ts";
import { followEvents, type StreamEvent, type StreamOptions } from "./events.ts";
import { createTransport } from "./http.ts";
import { allPages } from "./pages.ts";

export type {
  ApiKeyRecord,
  ApprovalDecision,
  ApprovalState,
  AuditReach,
  AuditRecord,
  DryRunReport,
  PendingApproval,
  ExecutionSummary,
  ExecutionView,
  StreamEvent,
  StreamOptions,
  TenantUsage,
  ToolOfferingView,
  ToolVersionView,
  ToolView,
};
export type { Bundle, BundleMethods, BundlePut, BundleSpec, Discovery, TenantOptions } from "./bundles.ts";
export type { CallOptions, RetryPolicy } from "./call-options.ts";
export { ClientTimeoutError, LocalError, ToolRuntimeError, type LocalErrorCode } from "./errors.ts";
export {
  AuthError,
  ExecutionError,
  InputValidationError,
  RateLimitError,
  RegistryError,
  RequestError,
  RuntimeError,
} from "./wire-errors.ts";
export { explainError, type Explanation } from "./explain.ts";
export { bootstrapOperator, type BootstrapOptions } from "./bootstrap.ts";
export {
  describeEvent,
  describeStatus,
  KNOWN_STATUSES,
  progressFraction,
  STATUS_INFO,
  type StatusInfo,
  type StatusTone,
} from "./statuses.ts";

export interface ClientOptions {
  baseUrl: string;
  /** A `trt_…` API key or a JWT; sent as `Authorization: Bearer …`. */
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Consecutive failed reconnects before a stream gives up (default 5). */
  maxReconnects?: number;
  /** Opt-in retries for every call (off by default); a call's own `retries` overrides them. See RetryPolicy. */
  retries?: RetryPolicy;
  /** A default `timeoutMs` for every call except streams (whose length is their execution's). */
  timeoutMs?: number;
}

/**
 * A call's envelope fields and its CallOptions. `limits.timeout_ms` is the runtime's budget
 * for the execution; `timeoutMs` is how long this client waits for the answer.
 */
export type InvokeOptions = Partial<
  Pick<ExecutionRequest, "version" | "provider" | "context" | "limits" | "idempotency_key">
> &
  CallOptions & {
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

export type AuditFilters = ListFilters & { tenant?: string };

export interface ToolSummary {
  name: string;
  active_version: string;
  description: string;
  versions: string[];
  providers: string[];
  /** Its offerings' tags, in any version the caller sees. */
  tags: string[];
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
  /**
   * What the key may do inside its tenant (docs/roles.md): `agent` (the default: its own
   * executions only), `tenant_admin`, `approver`, or `admin` (an operator's). `tenant` is the
   * old name of `agent`, still accepted.
   */
  role?: "agent" | "tenant_admin" | "approver" | "admin" | "tenant";
}

/** Tool bundles' methods are in BundleMethods (client/bundles.ts). */
export interface ToolRuntimeClient extends BundleMethods {
  /** Runs a tool and waits for the result (mode sync). */
  invoke(tool: string, input: unknown, options?: InvokeOptions): Promise<ExecutionView>;
  /** Starts a tool and returns at once (mode async). */
  start(tool: string, input: unknown, options?: InvokeOptions): Promise<{ execution_id: string; status: string }>;
  /** Runs a tool and answers with its event stream (docs/contract.md#streaming), ending with `done` or `error`. */
  invokeStream(
    tool: string,
    input: unknown,
    options?: InvokeOptions & Omit<StreamOptions, "after">,
  ): Promise<StreamedCall>;
  /** Which provider would serve, the capability decision and the schema verdict; runs nothing. */
  dryRun(tool: string, input: unknown, options?: InvokeOptions): Promise<DryRunReport>;
  get(executionId: string, options?: CallOptions): Promise<ExecutionView>;
  /** The execution's events until its terminal one; resumes after a dropped connection. */
  stream(executionId: string, options?: StreamOptions): AsyncGenerator<StreamEvent>;
  cancel(executionId: string, options?: { grace_ms?: number } & CallOptions): Promise<ExecutionView>;
  /** Approvers: the caller's tenant's calls awaiting approval, oldest first. */
  listApprovals(options?: CallOptions): Promise<{ approvals: PendingApproval[] }>;
  /** Approvers: lets a call awaiting approval run; the reason, if any, goes to the audit record. */
  approve(executionId: string, options?: { reason?: string } & CallOptions): Promise<ExecutionView>;
  /** Approvers: ends a call awaiting approval `failed` (`approval_rejected`); a reason is required. */
  reject(executionId: string, reason: string, options?: CallOptions): Promise<ExecutionView>;
  /** One page of the caller's tenant's executions, newest first; `executions.all` follows the pages. */
  listExecutions(filters?: ListFilters, options?: CallOptions): Promise<Page & { executions: ExecutionSummary[] }>;
  listTools(options?: CallOptions): Promise<{ registry_version: number; tools: ToolSummary[] }>;
  getTool(name: string, options?: CallOptions): Promise<ToolView>;
  /** Operators: one page of every tenant's audit records; `audit.all` follows the pages. */
  listAudit(filters?: AuditFilters, options?: CallOptions): Promise<Page & AuditReach & { records: AuditRecord[] }>;
  /**
   * A tenant's use by UTC day and tool with a cost estimate (docs/contract.md#usage): a tenant
   * admin its own tenant's, an operator any tenant's. Days are `YYYY-MM-DD`, inclusive.
   */
  usage(
    filters?: { from?: string; to?: string; tenant?: string; tool?: string },
    options?: CallOptions,
  ): Promise<TenantUsage>;
  /** Operators: `/metrics` in the Prometheus text format. */
  metrics(options?: CallOptions): Promise<string>;
  /** Operators: a new API key; `key` is in this answer only. */
  createKey(key: NewKey, options?: CallOptions): Promise<ApiKeyRecord & { key: string }>;
  listKeys(tenant?: string, options?: CallOptions): Promise<{ keys: ApiKeyRecord[] }>;
  revokeKey(keyId: string, options?: CallOptions): Promise<unknown>;
  /**
   * Every execution matching `filters`, newest first, fetching pages as the loop asks for
   * them (`limit` is the page size; `options` apply to each page's request):
   *
   *   for await (const e of runtime.executions.all({ status: "failed" }, { signal })) console.log(e.execution_id);
   */
  executions: { all(filters?: ListFilters, options?: CallOptions): AsyncGenerator<ExecutionSummary> };
  /** Operators: every audit record matching `filters`, page after page (as `executions.all`). */
  audit: { all(filters?: AuditFilters, options?: CallOptions): AsyncGenerator<AuditRecord> };
}

export function createClient(options: ClientOptions): ToolRuntimeClient {
  const t = createTransport(
    options.baseUrl,
    options.apiKey,
    options.fetch ?? ((input, init) => fetch(input, init)),
    options.retries,
  );
  const maxReconnects = options.maxReconnects;
  const id = encodeURIComponent;
  // The client's default deadline applies to calls, not to streams, which last as long as their execution.
  const withDefaults = (o: CallOptions = {}): CallOptions => ({ ...o, timeoutMs: o.timeoutMs ?? options.timeoutMs });

  const split = <T extends CallOptions>(o: T = {} as T) => {
    const { signal, timeoutMs, retries, ...rest } = o;
    return { call: withDefaults({ signal, timeoutMs, retries }), rest };
  };
  const envelope = (
    tool: string,
    input: unknown,
    mode: "sync" | "async" | "dry_run",
    o: InvokeOptions = {},
    stream = false,
  ) => {
    const { traceparent: _t, signal: _s, timeoutMs: _m, retries: _r, ...rest } = o;
    return { tool, input, mode, ...(stream ? { stream } : {}), ...rest };
  };
  const headersOf = (o?: InvokeOptions): Record<string, string> =>
    o?.traceparent ? { traceparent: o.traceparent } : {};
  const query = (f: object = {}) => {
    const q = new URLSearchParams(
      Object.entries(f).filter(([, v]) => v !== undefined && v !== "") as [string, string][],
    );
    const s = q.toString();
    return s ? `?${s}` : "";
  };
  // A call that creates an execution may be sent twice only under an idempotency key (RetryPolicy).
  const execute = <T>(mode: "sync" | "async" | "dry_run", tool: string, input: unknown, o?: InvokeOptions) =>
    t.call<T>(
      "POST",
      "/v1/executions",
      { body: envelope(tool, input, mode, o), headers: headersOf(o) },
      split(o).call,
      mode === "dry_run" || !!o?.idempotency_key,
    );
  const get = <T>(path: string, o?: CallOptions) => t.call<T>("GET", path, {}, withDefaults(o), true);
  const listExecutions = (f?: ListFilters, o?: CallOptions) =>
    get<Page & { executions: ExecutionSummary[] }>(`/v1/executions${query(f)}`, o);
  const listAudit = (f?: AuditFilters, o?: CallOptions) =>
    get<Page & AuditReach & { records: AuditRecord[] }>(`/v1/audit${query(f)}`, o);

  return {
    invoke: (tool, input, o) => execute<ExecutionView>("sync", tool, input, o),
    start: (tool, input, o) => execute("async", tool, input, o),
    dryRun: (tool, input, o) => execute<DryRunReport>("dry_run", tool, input, o),
    async invokeStream(tool, input, o = {}) {
      const { onDrop, maxReconnects: max, ...invoke } = o;
      const scope = openScope(o);
      try {
        const res = await t.send(
          "POST",
          "/v1/executions",
          {
            body: envelope(tool, input, "sync", invoke, true),
            headers: { ...headersOf(invoke), accept: "text/event-stream" },
          },
          {
            scope,
            options: o,
            idempotent: !!o.idempotency_key,
            read: async (r) => {
              if (!r.ok || !(r.headers.get("content-type") ?? "").startsWith("text/event-stream"))
                await t.json(r, scope.signal);
              return r;
            },
          },
        );
        const executionId = res.headers.get("x-execution-id") ?? res.headers.get("location")?.split("/").pop();
        if (!executionId)
          throw localError("bad_response", "the runtime answered a streamed call without its execution id");
        return {
          execution_id: executionId,
          events: followEvents(t, executionId, { ...o, onDrop, maxReconnects: max ?? maxReconnects }, res, scope),
        };
      } catch (err) {
        scope.close();
        throw err;
      }
    },
    get: (executionId, o) => get(`/v1/executions/${id(executionId)}`, o),
    stream: (executionId, o = {}) => followEvents(t, executionId, { maxReconnects, ...o }),
    cancel(executionId, o) {
      const { call, rest } = split(o);
      // Cancelling twice is cancelling once, so a cancel may be retried.
      return t.call("POST", `/v1/executions/${id(executionId)}/cancel`, { body: rest }, call, true);
    },
    listApprovals: (o) => get("/v1/approvals", o),
    approve(executionId, o) {
      const { call, rest } = split(o);
      return t.call("POST", `/v1/executions/${id(executionId)}/approve`, { body: rest }, call, false);
    },
    reject: (executionId, reason, o) =>
      t.call("POST", `/v1/executions/${id(executionId)}/reject`, { body: { reason } }, withDefaults(o), false),
    listExecutions,
    listTools: (o) => get("/v1/tools", o),
    getTool: (name, o) => get(`/v1/tools/${id(name)}`, o),
    listAudit,
    usage: (f, o) => get(`/v1/usage${query(f)}`, o),
    metrics: (o) =>
      t.call("GET", "/metrics", {}, withDefaults(o), true, async (res) => {
        if (!res.ok) await t.json(res);
        return res.text();
      }),
    createKey: (key, o) => t.call("POST", "/v1/admin/keys", { body: key }, withDefaults(o), false),
    listKeys: (tenant, o) => get(`/v1/admin/keys${query({ tenant })}`, o),
    revokeKey: (keyId, o) => t.call("DELETE", `/v1/admin/keys/${id(keyId)}`, {}, withDefaults(o), true),
    ...bundleMethods(t, withDefaults),
    executions: {
      all: (f = {}, o) =>
        allPages(async (cursor) => {
          const page = await listExecutions({ ...f, cursor }, o);
          return { items: page.executions, next_cursor: page.next_cursor };
        }, f.cursor),
    },
    audit: {
      all: (f = {}, o) =>
        allPages(async (cursor) => {
          const page = await listAudit({ ...f, cursor }, o);
          return { items: page.records, next_cursor: page.next_cursor };
        }, f.cursor),
    },
  };
}
