/** Parts of an execution's page: timings, the attempts on a timeline, capability decisions. */
import type { ExecutionView } from "../../../client/index.ts";
import { ms } from "../components/bits.tsx";

export function Timings({ view }: { view: ExecutionView }) {
  const e = view.execution;
  const rows: [string, string][] = [
    ["Provider", e.worker ?? "–"],
    ["Queued (acceptance → object)", ms(e.queued_ms)],
    ["Started (acceptance → provider)", ms(e.started_ms)],
    ["Ran (provider → end)", ms(e.duration_ms)],
    ["Timeout", ms(e.timeout_ms)],
  ];
  // A waiting execution's place in line, and the approval it needed.
  if (view.position !== undefined)
    rows.push([
      "Place in line",
      `${view.position} (${view.status === "scheduled" ? "for room at its provider" : "for a slot of its tenant"})`,
    ]);
  if (view.approval) {
    const d = view.approval.decision;
    rows.push([
      "Approval",
      d
        ? `${d.decision} by ${d.approver}${d.reason ? `: ${d.reason}` : ""} (rule: ${view.approval.rule})`
        : `needed (rule: ${view.approval.rule}), until ${new Date(view.approval.expires_at).toLocaleTimeString()}`,
    ]);
  }
  if (view.cancellation)
    rows.push([
      "Cancellation",
      `${view.cancellation.outcome ?? "waiting for the tool"} (asked ${new Date(view.cancellation.requested_at).toLocaleTimeString()})`,
    ]);
  return (
    <dl class="timings" aria-label="Timings">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Each attempt as a bar from its start to its end, on one scale from acceptance. */
export function Attempts({ view }: { view: ExecutionView }) {
  const attempts = view.attempts ?? [];
  if (attempts.length === 0) return null;
  const span = Math.max(1, ...attempts.map((a) => a.started_ms + a.duration_ms));
  return (
    <figure class="attempts">
      <figcaption>Attempts (from acceptance, {ms(span)} in all)</figcaption>
      <ol>
        {attempts.map((a) => (
          <li key={a.attempt}>
            <span class="attempt-label">
              #{a.attempt} {a.provider}: {a.outcome.replace(/_/g, " ")}, {ms(a.duration_ms)} from +{ms(a.started_ms)}
            </span>
            <span class="track" aria-hidden="true">
              <span
                class={`bar outcome-${a.outcome === "succeeded" ? "good" : "bad"}`}
                style={{
                  left: `${(a.started_ms / span) * 100}%`,
                  width: `${Math.max(0.5, (a.duration_ms / span) * 100)}%`,
                }}
              />
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}

export function Capability({ view }: { view: ExecutionView }) {
  const c = view.capability;
  if (!c) return null;
  return (
    <table class="data">
      <caption>Capability decisions (docs/contract.md#capabilities)</caption>
      <tbody>
        <tr>
          <th scope="row">Level 1: channels</th>
          <td>reachable: {c.level1.reachable.join(", ") || "none"}</td>
        </tr>
        <tr>
          <th scope="row">Level 2: intent</th>
          <td>
            {c.level2.verdict} ({c.level2.mode}){c.level2.reason ? `: ${c.level2.reason}` : ""}
          </td>
        </tr>
        <tr>
          <th scope="row">Level 3: capability</th>
          <td>
            {c.level3.required
              ? `needs ${c.level3.required}, granted by ${c.level3.granted_by ?? "nothing"}`
              : "needs nothing"}
          </td>
        </tr>
      </tbody>
    </table>
  );
}
