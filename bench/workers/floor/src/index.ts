/**
 * Bench-only Worker (not part of the product): the floors the runtime is measured against.
 *   F0  POST /f0  the provider's echo tool called directly through the same service binding
 *   F1  POST /f1  the same call made from a new Durable Object per call that writes one row
 *   POST /f0-upstream  the example upstream MCP server's `echo`, one tools/call over a service
 *       binding to a copy of it in this session (./upstream-floor.ts): the floor of the runtime's upstream hop
 * F1 is the cost the design buys (one object per execution that can be observed, docs/contract.md#modes).
 */
import { DurableObject, RpcTarget } from "cloudflare:workers";
import { upstreamFloor } from "./upstream-floor.ts";
import type { ExecutionSink, InvokeResult, StopSignal, ToolCall } from "../../../../providers/sdk/protocol.ts";

interface ProviderService {
  invoke(call: ToolCall, sink: ExecutionSink): Promise<InvokeResult>;
}

interface Env {
  PROVIDER_LAB: ProviderService;
  FLOOR: DurableObjectNamespace<FloorObject>;
  UPSTREAM: Fetcher;
}

/** The least a sink can be: takes events, never asks the provider to stop. */
class NullSink extends RpcTarget implements ExecutionSink {
  async emit(): Promise<void> {}
  stopped(): Promise<StopSignal> {
    return new Promise(() => {});
  }
}

function echoCall(input: unknown): ToolCall {
  return {
    execution_id: `bench_${crypto.randomUUID()}`,
    tool: "lab.echo",
    version: "1.0.0",
    input,
    caller: { tenant: "bench", agent: "bench" },
    context: {},
    remaining_timeout_ms: 5_000,
  };
}

export class FloorObject extends DurableObject<Env> {
  async run(input: unknown): Promise<InvokeResult> {
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)");
    this.ctx.storage.sql.exec("INSERT INTO calls (at) VALUES (?)", Date.now());
    return this.env.PROVIDER_LAB.invoke(echoCall(input), new NullSink());
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (request.method !== "POST") return new Response("POST /f0, /f1 or /f0-upstream", { status: 405 });
    const input = await request.json();
    if (path === "/f0-upstream") return upstreamFloor(env.UPSTREAM, input);
    let result: InvokeResult;
    if (path === "/f0") result = await env.PROVIDER_LAB.invoke(echoCall(input), new NullSink());
    else if (path === "/f1") result = await env.FLOOR.get(env.FLOOR.newUniqueId()).run(input);
    else return new Response("not found", { status: 404 });
    return Response.json(result.ok ? { output: result.output } : { error: result.error }, {
      status: result.ok ? 200 : 502,
    });
  },
};
