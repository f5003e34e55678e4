/**
 * W3C Trace Context (`traceparent`): accepted from callers, created when absent or
 * malformed, passed to providers with a span of the runtime's own, recorded in the audit log.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function hex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface TraceContext {
  trace_id: string;
  /** The runtime's span for this call; providers see it as their parent. */
  span_id: string;
  flags: string;
}

export function traceFrom(header: string | null | undefined): TraceContext {
  return continuedTrace(header) ?? { trace_id: hex(16), span_id: hex(8), flags: "01" };
}

/**
 * The caller's trace, continued with a span of the runtime's own; undefined when `value` is not a
 * valid `traceparent` (the caller then gets a new trace, never a refusal). All-zero ids are
 * invalid by the spec.
 */
export function continuedTrace(value: unknown): TraceContext | undefined {
  if (typeof value !== "string") return undefined;
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (m && !/^0+$/.test(m[1]) && !/^0+$/.test(m[2])) return { trace_id: m[1], span_id: hex(8), flags: m[3] };
  return undefined;
}

export function traceparentOf(t: TraceContext): string {
  return `00-${t.trace_id}-${t.span_id}-${t.flags}`;
}
