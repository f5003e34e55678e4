/** `#/approvals`: the tenant's calls waiting for a person, oldest first (approver keys only). */
import { ApprovalControls } from "../components/approval-controls.tsx";
import { JsonBlock, When } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { href } from "../router.ts";
import { useLoad } from "../use-load.ts";

export function ApprovalsPage() {
  const { data, error, loading, reload } = useLoad((c) => c.listApprovals(), []);
  return (
    <section>
      <h1 tabIndex={-1}>Approvals</h1>
      <p class="muted">
        Calls of your tenant that a rule holds until a person decides. Approved, a call goes on to run; rejected, it
        ends failed and never runs.
      </p>
      <button type="button" onClick={reload} disabled={loading}>
        Refresh
      </button>
      <Problem error={error} />
      {data && data.approvals.length === 0 && <p>Nothing is waiting for approval.</p>}
      <ul class="cards approvals" aria-busy={loading}>
        {data?.approvals.map((a) => (
          <li class="card" key={a.execution_id} data-execution-id={a.execution_id}>
            <p class="card-title">
              <a href={href("executions", a.execution_id)}>
                {a.tool}@{a.version}
              </a>{" "}
              ({a.effects})
            </p>
            <p>
              by {a.agent}
              {a.project ? ` (project ${a.project})` : ""}, rule: {a.rule}
            </p>
            <p>
              asked <When iso={a.accepted_at} />, until <When iso={a.expires_at} />
            </p>
            {a.input === null ? (
              <p class="muted">Input of {a.input_bytes} bytes, too large to show here.</p>
            ) : (
              <JsonBlock value={a.input} label={`Input of ${a.execution_id}`} />
            )}
            <ApprovalControls id={a.execution_id} label={`${a.tool} by ${a.agent}`} onDecided={reload} />
          </li>
        ))}
      </ul>
    </section>
  );
}
