/**
 * Approve or reject a call that awaits a person (approver keys only). A rejection needs a
 * reason (the API refuses one without); an approval's reason is optional. Both reasons go to
 * the audit record.
 */
import { useState } from "preact/hooks";
import type { ExecutionView } from "../../../client/index.ts";
import { useApp } from "../app-context.ts";
import { Problem } from "./problem.tsx";

export function ApprovalControls({
  id,
  label,
  onDecided,
}: {
  id: string;
  label: string;
  onDecided: (view: ExecutionView) => void;
}) {
  const { client, problem } = useApp();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const field = `reason-${id}`;
  const decide = async (decision: "approve" | "reject") => {
    setBusy(true);
    setError(null);
    try {
      const r = reason.trim();
      onDecided(
        decision === "approve" ? await client.approve(id, r ? { reason: r } : undefined) : await client.reject(id, r),
      );
    } catch (err) {
      if (!problem(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="approval" role="group" aria-label={`Decide on ${label}`}>
      <div class="field">
        <label for={field}>Reason (required to reject)</label>
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
          disabled={busy}
          onClick={() => void decide("approve")}
          aria-label={`Approve ${label}`}
        >
          Approve
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy || reason.trim() === ""}
          onClick={() => void decide("reject")}
          aria-label={`Reject ${label}`}
        >
          Reject
        </button>
      </div>
      <Problem error={error} />
    </div>
  );
}
