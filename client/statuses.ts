/**
 * Execution statuses and stream event types as people see them: one table for the console
 * and `trt`, keyed by the contract's status type so that a status added to the contract
 * fails the type check here until it has words (docs/contract.md#statuses). Anything the table does not
 * know — a newer runtime's status or event type — is still shown, by its own name.
 */
import type { ExecutionStatus } from "../src/contract.ts";

/** How a status looks: the console maps tones to colours, `trt` to symbols. */
export type StatusTone = "waiting" | "active" | "good" | "bad" | "stopped" | "unknown";

export interface StatusInfo {
  label: string;
  tone: StatusTone;
  /** True when the execution can change no more. */
  terminal: boolean;
  /** One line for a person. */
  meaning: string;
}

export const STATUS_INFO = {
  awaiting_approval: {
    label: "awaiting approval",
    tone: "waiting",
    terminal: false,
    meaning: "waiting for a person with the approver role to approve or reject it",
  },
  queued: {
    label: "queued",
    tone: "waiting",
    terminal: false,
    meaning: "accepted and waiting for one of its tenant's slots",
  },
  scheduled: {
    label: "scheduled",
    tone: "waiting",
    terminal: false,
    meaning: "has a slot and waits for room at its provider",
  },
  running: { label: "running", tone: "active", terminal: false, meaning: "the tool is running" },
  succeeded: { label: "succeeded", tone: "good", terminal: true, meaning: "the tool finished and its output is valid" },
  failed: { label: "failed", tone: "bad", terminal: true, meaning: "the execution ended with an error" },
  cancelled: {
    label: "cancelled",
    tone: "stopped",
    terminal: true,
    meaning: "the execution was cancelled; any partial output is kept",
  },
  timed_out: { label: "timed out", tone: "bad", terminal: true, meaning: "the execution ran out of time" },
} as const satisfies Record<ExecutionStatus, StatusInfo>;

/** Every status the client knows, in lifecycle order (for filters and legends). */
export const KNOWN_STATUSES = Object.keys(STATUS_INFO) as ExecutionStatus[];

/** The words for any status string, known or not; an unknown one is not assumed to be final. */
export function describeStatus(status: string): StatusInfo {
  if (Object.hasOwn(STATUS_INFO, status)) return STATUS_INFO[status as ExecutionStatus];
  return {
    label: status.replace(/_/g, " "),
    tone: "unknown",
    terminal: false,
    meaning: `"${status}" is a status this client does not know yet`,
  };
}

/** docs/contract.md#streaming event types; every stream ends with exactly one terminal event. */
export const EVENT_INFO: Record<string, { label: string; terminal: boolean }> = {
  start: { label: "started", terminal: false },
  stdout: { label: "stdout", terminal: false },
  stderr: { label: "stderr", terminal: false },
  progress: { label: "progress", terminal: false },
  partial: { label: "partial output", terminal: false },
  log: { label: "log", terminal: false },
  done: { label: "done", terminal: true },
  error: { label: "error", terminal: true },
};

export function describeEvent(type: string): { label: string; terminal: boolean } {
  return Object.hasOwn(EVENT_INFO, type) ? EVENT_INFO[type] : { label: type.replace(/_/g, " "), terminal: false };
}

/**
 * A progress event's fraction done (0..1), or null when it carries none: `percent` (0-100),
 * or `done`/`total` (or `current`/`total`).
 */
export function progressFraction(data: unknown): number | null {
  if (data === null || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  if (typeof d.percent === "number" && Number.isFinite(d.percent)) return clamp(d.percent / 100);
  const done = typeof d.done === "number" ? d.done : typeof d.current === "number" ? d.current : null;
  if (done !== null && typeof d.total === "number" && d.total > 0) return clamp(done / d.total);
  return null;
}
