/**
 * Executions: the tenant's executions, newest first (`GET /v1/executions`), filtered by
 * status and tool, a page at a time. The list follows the audit queue, about a second behind.
 */
import { useState } from "preact/hooks";
import { KNOWN_STATUSES, STATUS_INFO } from "../../../client/index.ts";
import { CursorPager, StatusBadge, When } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { useDraft } from "../drafts.ts";
import { href } from "../router.ts";
import { useLoad } from "../use-load.ts";

export function ExecutionsPage() {
  const [filters, setFilters] = useDraft("executions.filters", { status: "", tool: "", limit: "20" });
  const [form, setForm] = useState(filters);
  // Cursors of the pages before this one, so "Previous" can go back.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const { data, error, loading, reload } = useLoad(
    (c) =>
      c.listExecutions({
        status: filters.status || undefined,
        tool: filters.tool.trim() || undefined,
        limit: Number(filters.limit) || 20,
        cursor,
      }),
    [filters.status, filters.tool, filters.limit, cursor],
  );
  const apply = (e: Event) => {
    e.preventDefault();
    setCursors([]);
    setFilters(form);
  };
  return (
    <section>
      <h1 tabIndex={-1}>Executions</h1>
      <form class="row wrap filters" onSubmit={apply} aria-label="Filters">
        <div class="field">
          <label for="filter-status">Status</label>
          <select
            id="filter-status"
            value={form.status}
            onChange={(e) => setForm({ ...form, status: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            {KNOWN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_INFO[s].label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-tool">Tool</label>
          <input
            id="filter-tool"
            value={form.tool}
            onInput={(e) => setForm({ ...form, tool: (e.target as HTMLInputElement).value })}
            placeholder="e.g. demo.countdown"
          />
        </div>
        <div class="field">
          <label for="filter-limit">Per page</label>
          <select
            id="filter-limit"
            value={form.limit}
            onChange={(e) => setForm({ ...form, limit: (e.target as HTMLSelectElement).value })}
          >
            {["10", "20", "50", "100"].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </div>
        <button type="submit">Apply filters</button>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </form>
      <p class="muted">
        The list follows the audit queue: an execution appears about a second after it starts or ends.
      </p>
      <Problem error={error} />
      {loading && <p class="muted">Loading…</p>}
      {data && (
        <table class="data" aria-busy={loading}>
          <caption>
            {data.executions.length === 0
              ? "No executions match these filters"
              : `Executions, newest first (page ${cursors.length + 1})`}
          </caption>
          <thead>
            <tr>
              {["Execution", "Tool", "Status", "Error", "Accepted", "Ended"].map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.executions.map((x) => (
              <tr key={x.execution_id} data-execution-id={x.execution_id}>
                <th scope="row">
                  <a href={href("executions", x.execution_id)}>{x.execution_id}</a>
                </th>
                <td>
                  {x.tool}@{x.version}
                </td>
                <td>
                  <StatusBadge status={x.status} />
                </td>
                <td>{x.error_code ?? ""}</td>
                <td>
                  <When iso={x.accepted_at} />
                </td>
                <td>
                  <When iso={x.ended_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CursorPager label="Pages" cursors={cursors} setCursors={setCursors} next={data?.next_cursor} />
    </section>
  );
}
