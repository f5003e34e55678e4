import type { ExecutionObject } from "../durable-objects/execution-object.ts";
import type { RegistryObject } from "../durable-objects/registry-object.ts";
import type { TenantObject } from "../durable-objects/tenant-object.ts";
import type { AuditMessage } from "./audit/messages.ts";
import type { IntentRequest, IntentVerdict } from "../verifiers/intent/src/protocol.ts";
import type { ExecutionSink, InvokeResult, ProviderManifest, ToolCall } from "../providers/sdk/protocol.ts";

/** What a provider's service binding offers over Workers RPC (DESIGN.md 6). */
export interface ProviderService {
  manifest(): Promise<ProviderManifest>;
  invoke(call: ToolCall, sink: ExecutionSink): Promise<InvokeResult>;
}

/** AIOS §5.3 level 2: the intent verifier Worker's RPC surface. */
export interface IntentVerifierService {
  verify(request: IntentRequest): Promise<IntentVerdict>;
}

/** Bindings and vars from wrangler.toml; read through `loadConfig`, not directly. */
export interface Env {
  EXECUTIONS: DurableObjectNamespace<ExecutionObject>;
  REGISTRY: DurableObjectNamespace<RegistryObject>;
  TENANTS: DurableObjectNamespace<TenantObject>;
  API_KEYS?: KVNamespace;
  AUDIT_QUEUE?: Queue<AuditMessage>;
  AUDIT_DB?: D1Database;
  INTENT_VERIFIER?: IntentVerifierService;
  PROVIDERS?: unknown;
  DEV_API_KEY?: unknown;
  DEV_CALLER?: unknown;
  DEV_ADMIN_KEY?: unknown;
  DEV_ADMIN?: unknown;
  JWT_JWKS?: unknown;
  JWT_ISSUER?: unknown;
  JWT_AUDIENCE?: unknown;
  JWT_ALGORITHMS?: unknown;
  JWT_TENANT_CLAIM?: unknown;
  TENANT_LIMITS?: unknown;
  RETRY_MAX_ATTEMPTS?: unknown;
  RETRY_BASE_MS?: unknown;
  RETRY_CAP_MS?: unknown;
  MAX_REQUEST_BYTES?: unknown;
  SYSTEM_MAX_TIMEOUT_MS?: unknown;
  REGISTRY_SNAPSHOT_TTL_MS?: unknown;
  MANIFEST_REFRESH_MS?: unknown;
  EXECUTION_RETENTION_MS?: unknown;
  CANCEL_GRACE_MS?: unknown;
  MAX_CANCEL_GRACE_MS?: unknown;
  [binding: string]: unknown;
}
