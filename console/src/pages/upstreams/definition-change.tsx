/**
 * A changed definition: what changed (each JSON Pointer, before and after), and an Approve
 * button that names the hash shown, so what is approved is what was reviewed. The admin API
 * has no rejection: leaving a change unapproved is refusing it (the approved definition keeps
 * serving, or the tool stays withheld), and the change goes away by itself when the upstream
 * lists the approved definition again.
 */
import { useState } from "preact/hooks";
import { useApp } from "../../app-context.ts";
import { When } from "../../components/bits.tsx";
import { Problem } from "../../components/problem.tsx";
import type { UpstreamChangeView } from "../../lib/upstream-admin.ts";

const shown = (v: unknown) => (v === null ? "(absent)" : typeof v === "string" ? v : JSON.stringify(v, null, 1));

export function DefinitionChange({ upstream, change: c, onApproved }: { upstream: string; change: UpstreamChangeView; onApproved: () => void }) {
  const { upstreams, problem } = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const approve = async () => {
    if (!confirm(`Approve the new definition of ${c.registry_name}? Callers see it from now on.`)) return;
    setBusy(true);
    setError(null);
    try {
      await upstreams.approve(upstream, c.tool, c.new_hash);
      onApproved();
    } catch (err) {
      if (!problem(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="change card" aria-label={`Change of ${c.registry_name}`} data-change={c.tool}>
      <p class="card-title">{c.registry_name}</p>
      <p>
        Seen <When iso={c.seen_at} />. Meanwhile {c.serving === "approved" ? "the approved definition keeps serving" : "the tool is withheld"}. New definition <code title={c.new_hash}>{c.new_hash.slice(0, 12)}</code>, approved one{" "}
        <code title={c.approved_hash}>{c.approved_hash.slice(0, 12)}</code>.
      </p>
      <table class="data diff">
        <caption>What changed in {c.registry_name}</caption>
        <thead>
          <tr>
            <th scope="col">Where</th>
            <th scope="col">Approved</th>
            <th scope="col">New</th>
          </tr>
        </thead>
        <tbody>
          {c.diff.map((d) => (
            <tr key={d.path}>
              <th scope="row">
                <code>{d.path}</code>
              </th>
              <td>
                <pre class="before">{shown(d.before)}</pre>
              </td>
              <td>
                <pre class="after">{shown(d.after)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="actions">
        <button type="button" onClick={approve} disabled={busy} aria-label={`Approve the new definition of ${c.registry_name}`}>
          {busy ? "Approving…" : "Approve this definition"}
        </button>
      </div>
      <p class="muted">To refuse it, leave it unapproved: nothing changes for callers until an operator approves it, and it is dropped when the upstream lists the approved definition again.</p>
      <Problem error={error} />
    </article>
  );
}
