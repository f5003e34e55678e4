/**
 * A changed definition: what changed (each JSON Pointer, before and after), and Approve and
 * Reject buttons that name the hash shown, so what is decided is what was reviewed. Rejecting
 * keeps what served before (the approved definition, or the tool withheld) and the same hash is
 * never raised again; the optional reason is kept with the rejection.
 */
import { useState } from "preact/hooks";
import { useApp } from "../../app-context.ts";
import { When } from "../../components/bits.tsx";
import { Problem } from "../../components/problem.tsx";
import type { UpstreamChangeView } from "../../lib/upstream-admin.ts";

const shown = (v: unknown) => (v === null ? "(absent)" : typeof v === "string" ? v : JSON.stringify(v, null, 1));

export function DefinitionChange({
  upstream,
  change: c,
  onDecided,
}: {
  upstream: string;
  change: UpstreamChangeView;
  onDecided: () => void;
}) {
  const { upstreams, problem } = useApp();
  const [busy, setBusy] = useState<"approve" | "reject" | null>(null);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<unknown>(null);
  const decide = async (decision: "approve" | "reject") => {
    const question =
      decision === "approve"
        ? `Approve the new definition of ${c.registry_name}? Callers see it from now on.`
        : `Reject the new definition of ${c.registry_name}? What serves now serves on, and this definition is not offered again.`;
    if (!confirm(question)) return;
    setBusy(decision);
    setError(null);
    try {
      if (decision === "approve") await upstreams.approve(upstream, c.tool, c.new_hash);
      else await upstreams.reject(upstream, c.tool, c.new_hash, reason.trim() || undefined);
      onDecided();
    } catch (err) {
      if (!problem(err)) setError(err);
    } finally {
      setBusy(null);
    }
  };
  const field = `reject-reason-${upstream}-${c.tool}`;
  return (
    <article class="change card" aria-label={`Change of ${c.registry_name}`} data-change={c.tool}>
      <p class="card-title">{c.registry_name}</p>
      <p>
        Seen <When iso={c.seen_at} />. Meanwhile{" "}
        {c.serving === "approved" ? "the approved definition keeps serving" : "the tool is withheld"}. New definition{" "}
        <code title={c.new_hash}>{c.new_hash.slice(0, 12)}</code>, approved one{" "}
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
      <div class="field">
        <label for={field}>Reason (kept with a rejection)</label>
        <input
          id={field}
          value={reason}
          maxLength={1000}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
      </div>
      <div class="actions">
        <button
          type="button"
          class="approve"
          onClick={() => void decide("approve")}
          disabled={busy !== null}
          aria-label={`Approve the new definition of ${c.registry_name}`}
        >
          {busy === "approve" ? "Approving…" : "Approve this definition"}
        </button>
        <button
          type="button"
          class="danger"
          onClick={() => void decide("reject")}
          disabled={busy !== null}
          aria-label={`Reject the new definition of ${c.registry_name}`}
        >
          {busy === "reject" ? "Rejecting…" : "Reject"}
        </button>
      </div>
      <p class="muted">
        Left undecided, nothing changes for callers, and the change is dropped when the upstream lists the approved
        definition again.
      </p>
      <Problem error={error} />
    </article>
  );
}
