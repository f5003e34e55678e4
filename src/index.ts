/** Worker entry: wiring only. */
import { app } from "./app.ts";
import type { AuditMessage } from "./audit/messages.ts";
import { consumeAudit } from "./audit/consumer.ts";

export { AuditOutboxObject } from "../durable-objects/audit-outbox.ts";
export { ExecutionObject } from "../durable-objects/execution-object.ts";
export { HealthObject } from "../durable-objects/health-object.ts";
export { RegistryObject } from "../durable-objects/registry-object.ts";
export { TenantObject } from "../durable-objects/tenant-object.ts";
/** Workers RPC for service-binding callers (identity from the binding's props). */
export { ToolRuntime } from "./rpc.ts";

export default {
  fetch: app.fetch,
  /** The audit queue's consumer (src/audit/consumer.ts). */
  queue: consumeAudit,
} satisfies ExportedHandler<Env, AuditMessage>;
