/** A finished (or refused-after-running) execution: status, output or error envelope, capability, attempts. */
import type { ExecutionView, ToolRuntimeError } from "../../../client/index.ts";
import { JsonBlock, StatusBadge } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { href } from "../router.ts";
import { Attempts, Capability, Timings } from "./execution-parts.tsx";

export function ResultView({ view, error }: { view: ExecutionView; error?: ToolRuntimeError }) {
  return (
    <div class="result" aria-label="Result">
      <h3>
        <a href={href("executions", view.execution_id)}>{view.execution_id}</a> <StatusBadge status={view.status} />
      </h3>
      {error && <Problem error={error} />}
      {view.output !== undefined && (
        <>
          <h4>Output</h4>
          <JsonBlock value={view.output} label="Output" />
        </>
      )}
      {view.partial_output !== undefined && (
        <>
          <h4>Partial output</h4>
          <JsonBlock value={view.partial_output} label="Partial output" />
        </>
      )}
      {view.error && (
        <>
          <h4>Error envelope</h4>
          <JsonBlock value={{ error: view.error }} label="Error envelope" />
        </>
      )}
      <Timings view={view} />
      <Attempts view={view} />
      <Capability view={view} />
    </div>
  );
}
