/**
 * The runtime for other Workers: a `WorkerEntrypoint` reached over a service binding with
 * Workers RPC (TRT-002 §1: the same semantics as REST). The same pipeline runs; results and
 * error codes are the same; only the transport differs.
 *
 * The caller's identity comes from the binding's `props`, which the caller's deploy
 * configuration sets and the caller's code cannot change (AIOS §5.1: "set by kernel, not
 * caller — tamper-proof"). Nothing in a call's arguments can name a tenant or an agent.
 *
 *   [[services]]
 *   binding = "TOOLS"
 *   service = "tool-runtime"
 *   entrypoint = "ToolRuntime"
 *   props = { tenant = "acme", agent = "order-assistant", capabilities = ["network:api.example.com"] }
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { ExecutionView } from "./contract.ts";
import type { Env } from "./env.ts";
import { errorBody, RuntimeError, type ErrorBody } from "./errors.ts";
import type { Caller } from "./pipeline/capability.ts";
import { executionStub, expectExecution } from "./pipeline/dispatch.ts";
import { parseExecutionRequest } from "./pipeline/initiation.ts";
import { planExecution } from "./pipeline/plan.ts";
import { getSnapshot } from "./registry/snapshot-cache.ts";
import { loadConfig } from "./config.ts";

/** What the binding's `props` hold: the caller, as the operator configured it. */
export interface RpcProps {
  tenant?: string;
  agent?: string;
  capabilities?: string[];
  channels?: string[];
}

/** Options of a call; the same fields as the REST envelope, minus anything about identity. */
export interface RpcCallOptions {
  version?: string;
  provider?: string;
  context?: Record<string, unknown>;
  limits?: { timeout_ms?: number; max_output_bytes?: number };
  idempotency_key?: string;
}

const RPC_OPTIONS = new Set(["version", "provider", "context", "limits", "idempotency_key"]);

/** Errors cross RPC as values, so the code and details arrive intact (a thrown Error would lose them). */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: ErrorBody; execution?: ExecutionView };

export class ToolRuntime extends WorkerEntrypoint<Env, RpcProps> {
  /** Runs a tool and waits for its end (mode sync). */
  async invoke(tool: string, input: unknown, options: RpcCallOptions = {}): Promise<RpcResult<ExecutionView>> {
    return this.guard(async () => {
      const view = await this.run(tool, input, "sync", options);
      return view.error ? { ok: false, error: view.error, execution: view } : { ok: true, value: view };
    });
  }

  /** Starts a tool and answers at once (mode async). */
  async start(tool: string, input: unknown, options: RpcCallOptions = {}): Promise<RpcResult<{ execution_id: string; status: string }>> {
    return this.guard(async () => {
      const view = await this.run(tool, input, "async", options);
      return { ok: true, value: { execution_id: view.execution_id, status: view.status } };
    });
  }

  /** Starts a tool and answers with its event stream (SSE bytes, as REST sends them). */
  async invokeStream(tool: string, input: unknown, options: RpcCallOptions = {}): Promise<RpcResult<{ execution_id: string; stream: ReadableStream<Uint8Array> }>> {
    return this.guard(async () => {
      const { plan } = await planExecution(this.env, this.caller(), this.request(tool, input, "async", options), Date.now());
      const result = expectExecution(await executionStub(this.env, plan.execution_id)!.executeStream(plan));
      if (!("stream" in result) || !result.stream) throw new RuntimeError("rate_limited", "this execution has as many stream subscribers as it serves", { reason: "subscribers" });
      return { ok: true, value: { execution_id: plan.execution_id, stream: result.stream as ReadableStream<Uint8Array> } };
    });
  }

  async getExecution(executionId: string): Promise<RpcResult<ExecutionView>> {
    return this.guard(async () => {
      const view = await executionStub(this.env, executionId)?.view(this.caller().tenant);
      if (!view) throw new RuntimeError("execution_not_found", `no execution ${executionId}`, { execution_id: executionId });
      return { ok: true, value: view };
    });
  }

  async cancel(executionId: string, options: { grace_ms?: number } = {}): Promise<RpcResult<ExecutionView>> {
    return this.guard(async () => {
      const config = loadConfig(this.env);
      const grace = options.grace_ms ?? config.cancelGraceMs;
      if (!Number.isSafeInteger(grace) || grace < 0 || grace > config.maxCancelGraceMs) {
        throw new RuntimeError("invalid_request", `grace_ms must be an integer from 0 to ${config.maxCancelGraceMs}`, { field: "grace_ms" });
      }
      const view = await executionStub(this.env, executionId)?.cancel(this.caller().tenant, grace);
      if (!view) throw new RuntimeError("execution_not_found", `no execution ${executionId}`, { execution_id: executionId });
      return { ok: true, value: view };
    });
  }

  async listTools(): Promise<RpcResult<{ name: string; active_version: string; versions: string[] }[]>> {
    return this.guard(async () => {
      this.caller();
      const snapshot = await getSnapshot(this.env, (p) => this.ctx.waitUntil(p));
      return { ok: true, value: Object.values(snapshot.tools).map((t) => ({ name: t.name, active_version: t.active_version, versions: Object.keys(t.versions) })) };
    });
  }

  private async run(tool: string, input: unknown, mode: "sync" | "async", options: RpcCallOptions): Promise<ExecutionView> {
    const { plan } = await planExecution(this.env, this.caller(), this.request(tool, input, mode, options), Date.now(), (p) => this.ctx.waitUntil(p));
    return expectExecution(await executionStub(this.env, plan.execution_id)!.execute(plan)).view;
  }

  /** The REST envelope's own checks, so both faces accept and refuse the same calls. */
  private request(tool: string, input: unknown, mode: "sync" | "async", options: RpcCallOptions) {
    const given = (options ?? {}) as Record<string, unknown>;
    for (const key of Object.keys(given)) {
      // Identity is the binding's, and the mode is the method's: neither is an option here.
      if (!RPC_OPTIONS.has(key)) throw new RuntimeError("invalid_request", `unknown option ${JSON.stringify(key)}`, { field: key });
    }
    return parseExecutionRequest({ ...given, tool, input, mode });
  }

  /** The identity in the binding's props; a binding without one is refused. */
  private caller(): Caller {
    const p = this.ctx.props ?? {};
    if (typeof p.tenant !== "string" || p.tenant === "" || typeof p.agent !== "string" || p.agent === "") {
      throw new RuntimeError("unauthenticated", "this service binding carries no caller identity (props.tenant and props.agent)");
    }
    return { tenant: p.tenant, agent: p.agent, capabilities: p.capabilities ?? [], channels: p.channels ?? ["*"], role: "tenant" };
  }

  private async guard<T>(fn: () => Promise<RpcResult<T>>): Promise<RpcResult<T>> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RuntimeError) return { ok: false, error: err.toBody() };
      console.error(JSON.stringify({ msg: "rpc failed", error: String(err) }));
      return { ok: false, error: errorBody("internal", "the runtime failed while handling the call") };
    }
  }
}
