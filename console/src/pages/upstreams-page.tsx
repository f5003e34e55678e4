/**
 * `#/upstreams` (operators): every upstream MCP server with its health and tools, and each
 * definition that changed since it was approved, with its diff and Approve and Reject buttons.
 */
import { useApp } from "../app-context.ts";
import { Problem } from "../components/problem.tsx";
import { useLoad } from "../use-load.ts";
import { UpstreamCard } from "./upstreams/upstream-card.tsx";

export function UpstreamsPage() {
  const { upstreams } = useApp();
  const { data, error, loading, reload } = useLoad(() => upstreams.list(), []);
  const pending = data?.upstreams.reduce((n, u) => n + u.changes.length, 0) ?? 0;
  return (
    <section>
      <h1 tabIndex={-1}>Upstreams</h1>
      <p class="muted">
        MCP servers whose tools the runtime serves. A tool whose definition changes after it was approved is not served
        in its new form until an operator approves that very definition.
      </p>
      <div class="row">
        <button type="button" onClick={reload} disabled={loading}>
          Refresh
        </button>
        {data && (
          <p role="status">
            {data.upstreams.length} upstream(s);{" "}
            {pending === 0
              ? "no definition change waits for approval"
              : `${pending} definition change(s) wait for approval`}
          </p>
        )}
      </div>
      <Problem error={error} />
      {data?.upstreams.length === 0 && <p>No upstream is registered.</p>}
      <div aria-busy={loading}>
        {data?.upstreams.map((u) => (
          <UpstreamCard key={u.name} upstream={u} onChanged={reload} />
        ))}
      </div>
    </section>
  );
}
