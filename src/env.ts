import type { ExecutionObject } from "../durable-objects/execution-object.ts";
import type { RegistryObject } from "../durable-objects/registry-object.ts";
import type { ExecutionSink, InvokeResult, ProviderManifest, ToolCall } from "../providers/sdk/protocol.ts";

/** What a provider's service binding offers over Workers RPC (DESIGN.md 6). */
export interface ProviderService {
  manifest(): Promise<ProviderManifest>;
  invoke(call: ToolCall, sink: ExecutionSink): Promise<InvokeResult>;
}

/** Bindings and vars from wrangler.toml; read through `loadConfig`, not directly. */
export interface Env {
  EXECUTIONS: DurableObjectNamespace<ExecutionObject>;
  REGISTRY: DurableObjectNamespace<RegistryObject>;
  PROVIDERS?: unknown;
  DEV_CALLER?: unknown;
  MAX_REQUEST_BYTES?: unknown;
  SYSTEM_MAX_TIMEOUT_MS?: unknown;
  REGISTRY_SNAPSHOT_TTL_MS?: unknown;
  MANIFEST_REFRESH_MS?: unknown;
  EXECUTION_RETENTION_MS?: unknown;
  CANCEL_GRACE_MS?: unknown;
  MAX_CANCEL_GRACE_MS?: unknown;
  [binding: string]: unknown;
}
