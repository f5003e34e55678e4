/**
 * The runtime for other Workers: a `WorkerEntrypoint` reached over a service binding with
 * Workers RPC (docs/contract.md#faces: the same semantics as REST) — a face of the execution service.
 *
 * The caller's identity comes from the binding's `props`, which the caller's deploy
 * configuration sets and the caller's code cannot change (docs/contract.md#initiation: the
 * runtime sets who is calling, never the caller). Nothing in a call's arguments can name a tenant or an agent.
 *
 *   [[services]]
 *   binding = "TOOLS"
 *   service = "tool-runtime"
 *   entrypoint = "ToolRuntime"
 *   props = { tenant = "acme", agent = "order-assistant", capabilities = ["network:api.example.com"] }
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { Caller, ExecutionView, Outcome, PendingApproval } from "./contract.ts";
import { RuntimeError } from "./errors.ts";
import { traceFrom } from "./audit/trace.ts";
import { approvals, cancel, decide, execute, get, type CallAnswer, type CallContext } from "./execution/service.ts";
import { toolList } from "./execution/tool-listing.ts";
import { chargeRequests } from "./policy/request-rate.ts";
import { sseStream } from "./stream/sse.ts";

/** What the binding's `props` hold: the caller, as the operator configured it. */
export interface RpcProps {
  tenant?: string;
  agent?: string;
  capabilities?: string[];
  channels?: string[];
  /**
   * "approver": this binding may also decide its tenant's pending approvals; "tenant_admin": it
   * sees and cancels every execution of its tenant. Anything else (an operator's "admin"
   * among them: operators are not reached over bindings) is an agent (src/auth/roles.ts).
   */
  role?: string;
}

/** Options of a call; the same fields as the REST envelope, minus anything about identity or delivery. */
export interface RpcCallOptions {
  version?: string;
  provider?: string;
  project?: string;
  context?: Record<string, unknown>;
  limits?: { timeout_ms?: number; max_output_bytes?: number };
  idempotency_key?: string;
  /** W3C Trace Context of the caller's span (the REST face reads it from the `traceparent` header). */
  traceparent?: string;
}

const RPC_OPTIONS = new Set(["version", "provider", "project", "context", "limits", "idempotency_key", "traceparent"]);

/** The result of every method: `Outcome` (src/contract.ts), the same type the whole runtime uses. */
export type RpcResult<T> = Outcome<T>;

export class ToolRuntime extends WorkerEntrypoint<Env, RpcProps> {
  /** Runs a tool and waits for its end (mode sync). A run that failed is `ok: false` with its `execution`. */
  async invoke(tool: string, input?: unknown, options: RpcCallOptions = {}): Promise<RpcResult<ExecutionView>> {
    return this.#call(tool, input, options, { mode: "sync" }, (a) => {
      if (a.kind !== "finished") throw new Error(`unexpected answer ${a.kind}`);
      return a.view.error ? { ok: false, error: a.view.error, execution: a.view } : { ok: true, value: a.view };
    });
  }

  /** Starts a tool and answers at once (mode async). */
  async start(
    tool: string,
    input?: unknown,
    options: RpcCallOptions = {},
  ): Promise<RpcResult<{ execution_id: string; status: string }>> {
    return this.#call(tool, input, options, { mode: "async" }, (a) => {
      if (a.kind === "accepted") return { ok: true, value: { execution_id: a.execution_id, status: a.status } };
      if (a.kind === "finished")
        return { ok: true, value: { execution_id: a.view.execution_id, status: a.view.status } };
      throw new Error(`unexpected answer ${a.kind}`);
    });
  }

  /** Starts a tool and answers with its event stream (SSE bytes, as REST sends them). */
  async invokeStream(
    tool: string,
    input?: unknown,
    options: RpcCallOptions = {},
  ): Promise<RpcResult<{ execution_id: string; stream: ReadableStream<Uint8Array> }>> {
    return this.#call(tool, input, options, { mode: "async", stream: true }, (a) => {
      if (a.kind !== "stream") throw new Error(`unexpected answer ${a.kind}`);
      return { ok: true, value: { execution_id: a.execution_id, stream: sseStream(a.events) } };
    });
  }

  async getExecution(executionId: string): Promise<RpcResult<ExecutionView>> {
    const caller = await this.#charged();
    return caller.ok ? get({ env: this.env, caller: caller.value }, executionId) : caller;
  }

  async cancel(executionId: string, options: { grace_ms?: number } = {}): Promise<RpcResult<ExecutionView>> {
    const caller = await this.#charged();
    return caller.ok ? cancel({ env: this.env, caller: caller.value }, executionId, options?.grace_ms) : caller;
  }

  /** Approver role (docs/contract.md#approvals): let a call that awaits approval go on to run. */
  async approve(executionId: string, options: { reason?: string } = {}): Promise<RpcResult<ExecutionView>> {
    const caller = await this.#charged();
    return caller.ok
      ? decide({ env: this.env, caller: caller.value }, executionId, "approved", options?.reason)
      : caller;
  }

  /** Approver role: end a call that awaits approval without running it; a reason is required. */
  async reject(executionId: string, options: { reason?: string } = {}): Promise<RpcResult<ExecutionView>> {
    const caller = await this.#charged();
    return caller.ok
      ? decide({ env: this.env, caller: caller.value }, executionId, "rejected", options?.reason)
      : caller;
  }

  /** Approver role: the tenant's calls waiting for a person, oldest first. */
  async listApprovals(): Promise<RpcResult<{ approvals: PendingApproval[] }>> {
    const caller = await this.#charged();
    return caller.ok ? approvals({ env: this.env, caller: caller.value }) : caller;
  }

  async listTools(): Promise<RpcResult<{ name: string; active_version: string; versions: string[] }[]>> {
    const caller = await this.#charged();
    if (!caller.ok) return caller;
    const list = await toolList(this.env, caller.value, (p) => this.ctx.waitUntil(p));
    return list.ok
      ? {
          ok: true,
          value: list.value.tools.map((t) => ({
            name: t.name,
            active_version: t.active_version,
            versions: t.versions,
          })),
        }
      : list;
  }

  async #call<T>(
    tool: string,
    input: unknown,
    options: RpcCallOptions,
    delivery: Record<string, unknown>,
    shape: (a: CallAnswer) => RpcResult<T>,
  ): Promise<RpcResult<T>> {
    const caller = this.#caller();
    if (!caller.ok) return caller;
    const given = (options ?? {}) as Record<string, unknown>;
    for (const key of Object.keys(given)) {
      // Identity is the binding's, and the mode is the method's: neither is an option here.
      if (!RPC_OPTIONS.has(key))
        return {
          ok: false,
          error: new RuntimeError("invalid_request", `unknown option ${JSON.stringify(key)}`, { field: key }).toBody(),
        };
    }
    const { traceparent, ...envelope } = given;
    const ctx: CallContext = {
      env: this.env,
      caller: caller.value,
      face: "rpc",
      acceptedAt: Date.now(),
      trace: traceFrom(typeof traceparent === "string" ? traceparent : undefined),
      waitUntil: (p) => this.ctx.waitUntil(p),
    };
    // An `input` left undefined is left out, as a REST body without one (`{}` when the schema takes it).
    const outcome = await execute(ctx, { ...envelope, tool, ...(input !== undefined ? { input } : {}), ...delivery });
    return outcome.ok ? shape(outcome.value) : outcome;
  }

  /** The caller, having taken one of its tenant's tokens for this request (src/policy/request-rate.ts); calls are charged by admission instead. */
  async #charged(): Promise<Outcome<Caller>> {
    const caller = this.#caller();
    if (!caller.ok) return caller;
    try {
      await chargeRequests(this.env, caller.value, (p) => this.ctx.waitUntil(p));
    } catch (err) {
      if (err instanceof RuntimeError) return { ok: false, error: err.toBody() };
      throw err;
    }
    return caller;
  }

  /** The identity in the binding's props; a binding without one is refused. */
  #caller(): Outcome<Caller> {
    const p = this.ctx.props ?? {};
    if (typeof p.tenant !== "string" || p.tenant === "" || typeof p.agent !== "string" || p.agent === "") {
      return {
        ok: false,
        error: new RuntimeError(
          "unauthenticated",
          "this service binding carries no caller identity (props.tenant and props.agent)",
        ).toBody(),
      };
    }
    // Least privilege: what the binding's props name, nothing more (no channels: no provider).
    return {
      ok: true,
      value: {
        tenant: p.tenant,
        agent: p.agent,
        capabilities: p.capabilities ?? [],
        channels: p.channels ?? [],
        role: p.role === "approver" || p.role === "tenant_admin" ? p.role : "agent",
      },
    };
  }
}
