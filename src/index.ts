/** Worker entry: wiring only. */
import { app } from "./app.ts";
import type { AuditMessage } from "./audit/messages.ts";
import { consumeAudit } from "./audit/consumer.ts";
import { consumeTail } from "./audit/tail.ts";
import { consumeDeadLetters, DEAD_LETTER_QUEUE } from "./audit/dead-letters.ts";
import { noteDataCenter } from "./registry/snapshot-cache.ts";

export { AuditOutboxObject } from "../durable-objects/audit-outbox.ts";
export { ExecutionObject } from "../durable-objects/execution-object.ts";
export { ProviderGate } from "../durable-objects/provider-gate.ts";
export { HealthObject } from "../durable-objects/health-object.ts";
export { RegistryObject } from "../durable-objects/registry-object.ts";
export { SnapshotRelayObject } from "../durable-objects/snapshot-relay-object.ts";
export { TenantObject } from "../durable-objects/tenant-object.ts";
export { UpstreamCredentialObject } from "../durable-objects/upstream-credential-object.ts";
/** An execution object's provider calls go through it, so a forced cancel can end them (src/execution/provider-relay.ts). */
export { ProviderRelay } from "./execution/provider-relay.ts";
/** Workers RPC for service-binding callers (identity from the binding's props). */
export { ToolRuntime } from "./rpc.ts";

export default {
  fetch(request, env, ctx) {
    // The data center this isolate runs in: its snapshot refills go to that data center's relay.
    noteDataCenter(request.cf?.colo);
    return app.fetch(request, env, ctx);
  },
  /** The audit queue's consumer (src/audit/consumer.ts), and its dead letter queue's (src/audit/dead-letters.ts). */
  queue: (batch, env) =>
    batch.queue === (env.AUDIT_DEAD_LETTER_QUEUE || DEAD_LETTER_QUEUE)
      ? consumeDeadLetters(batch, env)
      : consumeAudit(batch, env),
  /** The provider Workers' tail consumer: their invocations' CPU time (src/audit/tail.ts). */
  tail: consumeTail,
} satisfies ExportedHandler<Env, AuditMessage>;
