/** `trt`'s human output: short lines first, JSON where the data is JSON. */
import { table } from "./table.ts";
import {
  describeEvent,
  describeStatus,
  explainError,
  type ExecutionSummary,
  type PendingApproval,
  type ExecutionView,
  type StreamEvent,
  type ToolRuntimeError,
  type ToolSummary,
  type ToolView,
} from "../client/index.ts";

const TONE_MARK: Record<string, string> = {
  good: "✓",
  bad: "✗",
  stopped: "■",
  active: "…",
  waiting: "…",
  unknown: "?",
};

export const pretty = (value: unknown) => JSON.stringify(value, null, 2);

export function statusLine(view: { execution_id: string; tool: string; version?: string; status: string }): string {
  const info = describeStatus(view.status);
  return `${TONE_MARK[info.tone] ?? "?"} ${view.execution_id}  ${view.tool}${view.version ? `@${view.version}` : ""}  ${info.label}`;
}

export function renderView(view: ExecutionView): string {
  const lines = [statusLine(view)];
  const e = view.execution;
  const timing = [
    e.worker && `provider ${e.worker}`,
    e.duration_ms !== null && `ran ${e.duration_ms} ms`,
    `timeout ${e.timeout_ms} ms`,
  ].filter(Boolean);
  lines.push(`  ${timing.join(" · ")}`);
  if (view.attempts && view.attempts.length > 1) {
    for (const a of view.attempts)
      lines.push(`  attempt ${a.attempt}: ${a.provider} ${a.outcome} (+${a.started_ms} ms, ${a.duration_ms} ms)`);
  }
  // Where a waiting call stands, and who decided on one that needed approval.
  if (view.position !== undefined)
    lines.push(
      `  position ${view.position} in line (${view.status === "scheduled" ? "for room at its provider" : "for a slot of its tenant"})`,
    );
  if (view.approval) {
    const d = view.approval.decision;
    lines.push(
      d
        ? `  ${d.decision} by ${d.approver} at ${d.at}${d.reason ? `: ${d.reason}` : ""} (rule: ${view.approval.rule})`
        : `  needs approval (rule: ${view.approval.rule}) until ${view.approval.expires_at}: trt approve ${view.execution_id}`,
    );
  }
  if (view.cancellation)
    lines.push(
      `  cancelled at ${view.cancellation.requested_at}: ${view.cancellation.outcome ?? "waiting for the tool to stop"}`,
    );
  if (view.error) lines.push(`  error ${view.error.code}: ${view.error.message}`);
  if (view.output !== undefined) lines.push("output:", pretty(view.output));
  if (view.partial_output !== undefined) lines.push("partial output:", pretty(view.partial_output));
  if (!describeStatus(view.status).terminal) lines.push(`  still going: trt watch ${view.execution_id}`);
  return lines.join("\n") + "\n";
}

/** One event as a line; `stdout` text is passed through as the tool wrote it. */
export function renderEvent(event: StreamEvent): string {
  if (event.type === "stdout" || event.type === "stderr")
    return typeof event.data === "string" ? event.data : `${pretty(event.data)}\n`;
  const label = describeEvent(event.type).label;
  const data =
    event.type === "log" && typeof event.data?.message === "string" ? event.data.message : JSON.stringify(event.data);
  return `[${event.seq}] ${label}: ${data}\n`;
}

export function renderTools(tools: ToolSummary[]): string {
  return table(
    ["TOOL", "VERSION", "PROVIDERS (best first)", "DESCRIPTION"],
    tools.map((t) => [t.name, t.active_version, t.providers.join(","), t.description]),
  );
}

export function renderTool(tool: ToolView): string {
  const lines = [`${tool.name} (active ${tool.active_version})`, `  ${tool.description}`];
  for (const v of tool.versions) {
    const dep = v.deprecation
      ? `  deprecated: sunset ${v.deprecation.sunset}${v.deprecation.replacement ? `, use ${v.deprecation.replacement}` : ""}`
      : "";
    lines.push("", `version ${v.version}${v.active ? " (active)" : ""}${dep}`);
    v.providers.forEach((p, i) => {
      const rate = p.error_rate === null ? "–" : `${(p.error_rate * 100).toFixed(1)}%`;
      const health = [p.alive ? "alive" : "dead", p.disabled ? "disabled" : "", `breaker ${p.breaker}`]
        .filter(Boolean)
        .join(", ");
      lines.push(
        `  ${i + 1}. ${p.provider.padEnd(12)} trust ${p.trust.padEnd(9)} p50 ${p.p50_ms === null ? "–" : `${p.p50_ms} ms`}  errors ${rate}  ${health}`,
      );
    });
  }
  const schema = tool.versions.find((v) => v.active)?.providers[0]?.input_schema;
  if (schema) lines.push("", "input schema:", pretty(schema));
  return lines.join("\n") + "\n";
}

export function renderExecutions(items: ExecutionSummary[], nextCursor: string | null): string {
  if (items.length === 0) return "no executions match\n";
  const rows = table(
    ["EXECUTION", "STATUS", "TOOL", "ACCEPTED", "ERROR"],
    items.map((x) => [
      x.execution_id,
      describeStatus(x.status).label,
      `${x.tool}@${x.version}`,
      x.accepted_at,
      x.error_code,
    ]),
  );
  return nextCursor ? `${rows}more: trt ls --cursor ${nextCursor}\n` : rows;
}

export function renderError(err: ToolRuntimeError): string {
  const x = explainError(err, "cli");
  return [`trt: ${x.title}`, ...x.lines.map((l) => `  ${l}`), `  ${x.action}`].join("\n") + "\n";
}

/** Pending approvals, oldest first, with what each would do (its input last: it may be long). */
export function renderApprovals(pending: PendingApproval[]): string {
  if (pending.length === 0) return "no calls await approval\n";
  const rows = pending.map((a) => [
    a.execution_id,
    `${a.tool}@${a.version}`,
    a.effects,
    a.agent,
    a.expires_at,
    a.rule,
    a.input === null ? `(${a.input_bytes} bytes)` : JSON.stringify(a.input),
  ]);
  return table(["EXECUTION", "TOOL", "EFFECTS", "AGENT", "EXPIRES", "RULE", "INPUT"], rows);
}
