/** `#/executions/{id}`: one execution, live. */
import { href } from "../router.ts";
import { ExecutionMonitor } from "./execution-monitor.tsx";

export function ExecutionPage({ id }: { id: string }) {
  return (
    <section>
      <p>
        <a href={href("executions")}>← All executions</a>
      </p>
      <h1 tabIndex={-1}>
        Execution <code>{id}</code>
      </h1>
      <ExecutionMonitor id={id} />
    </section>
  );
}
