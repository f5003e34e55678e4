/**
 * The provider Worker's entrypoint. A provider module does
 *
 *   export default createProvider("std", [mathEvaluate, textStats]);
 *
 * and the runtime reaches it over a service binding with Workers RPC.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { ToolDefinition } from "./define.ts";
import type { ExecutionSink, InvokeResult, ProviderManifest, ToolCall } from "./protocol.ts";
import { invocationLogLine, runTool } from "./run-tool.ts";

export const SDK_VERSION = "1.3.0";

/** What a provider declares about itself besides its tools. */
export interface ProviderOptions {
  /** The most calls it takes at once, across its tools (see ProviderManifest.max_concurrency). */
  max_concurrency?: number;
}

export function createProvider(name: string, tools: ToolDefinition[], options: ProviderOptions = {}) {
  const limit = options.max_concurrency;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0))
    throw new Error(`provider ${name}: max_concurrency must be a positive integer`);
  const byKey = new Map<string, ToolDefinition>();
  for (const tool of tools) {
    const key = `${tool.manifest.name}@${tool.manifest.version}`;
    if (byKey.has(key)) throw new Error(`provider ${name}: ${key} is declared twice`);
    byKey.set(key, tool);
  }
  const manifest: ProviderManifest = {
    provider: name,
    sdk_version: SDK_VERSION,
    tools: tools.map((t) => t.manifest),
    ...(limit !== undefined ? { max_concurrency: limit } : {}),
  };

  return class Provider extends WorkerEntrypoint {
    manifest(): ProviderManifest {
      return manifest;
    }

    async invoke(call: ToolCall, sink: ExecutionSink): Promise<InvokeResult> {
      // First, so a long log cannot crowd it out of the platform's report of this invocation.
      console.log(JSON.stringify(invocationLogLine(call)));
      const def = byKey.get(`${call.tool}@${call.version}`);
      if (!def) {
        return {
          ok: false,
          error: { code: "tool_not_found", message: `${name} does not serve ${call.tool}@${call.version}` },
          latency_us: 0,
        };
      }
      return runTool(def, call, sink);
    }

    /** A human-readable look at the provider; the runtime never calls it. */
    async fetch(): Promise<Response> {
      return Response.json(manifest);
    }
  };
}
