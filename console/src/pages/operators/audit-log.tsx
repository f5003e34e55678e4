/** The audit log (`GET /v1/audit`): every tenant's records, filtered, a page at a time. */
import { useState } from "preact/hooks";
import { KNOWN_STATUSES } from "../../../../client/index.ts";
import { CursorPager, StatusBadge, When, ms } from "../../components/bits.tsx";
import { Problem } from "../../components/problem.tsx";
import { useDraft } from "../../drafts.ts";
import { useLoad } from "../../use-load.ts";

export function AuditLog() {
  const [filters, setFilters] = useDraft("audit.filters", { tenant: "", tool: "", status: "" });
  const [form, setForm] = useState(filters);
  const [cursors, setCursors] = useState<string[]>([]);
  const { data, error, loading, reload } = useLoad(
    (c) =>
      c.listAudit({
        tenant: filters.tenant.trim() || undefined,
        tool: filters.tool.trim() || undefined,
        status: filters.status || undefined,
        limit: 20,
        cursor: cursors.at(-1),
      }),
    [filters.tenant, filters.tool, filters.status, cursors.at(-1)],
  );
  const text = (name: "tenant" | "tool", label: string) => (
    <div class="field">
      <label for={`audit-${name}`}>{label}</label>
      <input
        id={`audit-${name}`}
        value={form[name]}
        onInput={(e) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value })}
      />
    </div>
  );
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <form
        class="row wrap filters"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([]);
          setFilters(form);
        }}
      >
        {text("tenant", "Tenant")}
        {text("tool", "Tool")}
        <div class="field">
          <label for="audit-status">Status</label>
          <select
            id="audit-status"
            value={form.status}
            onChange={(e) => setForm({ ...form, status: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            {KNOWN_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
        <button type="submit">Apply filters</button>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </form>
      <Problem error={error} />
      {data && (
        <table class="data" aria-busy={loading}>
          <caption>
            {data.records.length === 0
              ? "No audit records match"
              : `Audit records, newest first (page ${cursors.length + 1})`}
          </caption>
          <thead>
            <tr>
              {["Ended", "Tenant / agent", "Tool", "Provider", "Status", "Latency", "Attempts", "Execution"].map(
                (h) => (
                  <th scope="col" key={h}>
                    {h}
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody>
            {data.records.map((r) => (
              <tr key={r.execution_id}>
                <td>
                  <When iso={r.ended_at} />
                </td>
                <td>
                  {r.tenant} / {r.agent}
                </td>
                <td>
                  {r.tool}@{r.version}
                </td>
                <td>{r.provider ?? "–"}</td>
                <td>
                  <StatusBadge status={r.status} /> {r.error_code && r.error_code !== r.status ? r.error_code : ""}
                </td>
                <td>{ms(r.latency_ms)}</td>
                <td>{r.attempts.length}</td>
                <td>
                  {/* Another tenant's execution cannot be opened with this key, so it is shown, not linked. */}
                  <code title={r.execution_id}>{r.execution_id.slice(0, 18)}…</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CursorPager label="Audit pages" cursors={cursors} setCursors={setCursors} next={data?.next_cursor} />
    </section>
  );
}
