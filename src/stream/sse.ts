import { toJson } from "../codec/bytes.ts";

/**
 * Server-Sent Events framing for execution events (TRT-002 §7, DESIGN.md 9). Pure: the
 * execution object frames, the edge only passes bytes through.
 */

export interface StreamEvent {
  seq: number;
  type: string;
  data: unknown;
  at: number;
}

/** How long a client should wait before reconnecting, sent once at the start of each stream. */
export const RETRY_MS = 2_000;
/** DESIGN.md 9: a comment line at least this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;

export const TERMINAL_EVENT_TYPES = ["done", "error"] as const;

export function isTerminalEvent(type: string): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** One event: its sequence number is the SSE id, so `Last-Event-ID` resumes after it. */
export function frameEvent(event: StreamEvent): string {
  const payload = toJson({ seq: event.seq, type: event.type, at: new Date(event.at).toISOString(), data: event.data });
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${payload}\n\n`;
}

export function frameRetry(ms = RETRY_MS): string {
  return `retry: ${ms}\n\n`;
}

export function frameHeartbeat(): string {
  return ": heartbeat\n\n";
}

/**
 * The sequence number to resume after: `Last-Event-ID` (what EventSource sends on reconnect)
 * wins over `?after=`; neither means from the start. Returns null when malformed.
 */
export function resumeAfter(lastEventId: string | null | undefined, afterParam: string | null | undefined): number | null {
  const raw = lastEventId ?? afterParam;
  if (raw === null || raw === undefined || raw === "") return 0;
  if (!/^\d{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}
