/** Operators: latency and error charts, breakers, the audit log and API keys. */
import { ApiKeys } from "./operators/api-keys.tsx";
import { AuditLog } from "./operators/audit-log.tsx";
import { Health } from "./operators/health.tsx";

export function OperatorsPage() {
  return (
    <section>
      <h1 tabIndex={-1}>Operators</h1>
      <Health />
      <AuditLog />
      <ApiKeys />
    </section>
  );
}
