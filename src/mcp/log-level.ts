/**
 * Which log messages a `tools/call`'s client asked for (docs/contract.md#mcp). A call whose client
 * asked for some is followed (call.ts), so that its `log`/`stdout`/`stderr` events reach the
 * client as `notifications/message` while it runs, from that level up; a client that asked for
 * none gets none from a plain call, which takes the fast path.
 *
 *   2026-07-28  the request's own `_meta["io.modelcontextprotocol/logLevel"]`
 *   2025        `logging/setLevel` earlier in the session. The 2025 lane keeps nothing per
 *               session (handler.ts), so the level is kept in the data center's cache under the
 *               session id, for a day: a call served by another data center, or after the entry
 *               was evicted, is answered as if no level had been set (best effort, as the
 *               protocol's log messages are)
 */
import type { LoggingLevel } from "@modelcontextprotocol/server";
import type { McpScope } from "./scope.ts";

const LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];
const CACHE_NAME = "tool-runtime";
const KEPT_SECONDS = 24 * 60 * 60;
const LOG_LEVEL_META = "io.modelcontextprotocol/logLevel";
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}

/** Whether a message at `level` reaches a client that asked for `min` and up. */
export function atLeast(level: LoggingLevel, min: LoggingLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

/** The level a 2026-07-28 request's envelope asks for, if any. */
export function requestLogLevel(meta: Record<string, unknown> | undefined): LoggingLevel | undefined {
  const level = meta?.[LOG_LEVEL_META];
  return isLoggingLevel(level) ? level : undefined;
}

/**
 * On the 2025 lane: keeps the level of a session's `logging/setLevel` (the SDK answers the
 * request itself), and gives a session's `tools/call` the level kept for it (`scope.logLevel`).
 */
export async function sessionLogLevel(scope: McpScope, body: unknown): Promise<void> {
  const m = body as { method?: unknown; params?: { level?: unknown; _meta?: Record<string, unknown> } } | undefined;
  if (!scope.sessionId || m?.params?._meta?.[PROTOCOL_VERSION_META] !== undefined) return;
  if (m?.method === "logging/setLevel" && isLoggingLevel(m.params?.level)) {
    await keep(scope.sessionId, m.params.level);
  } else if (m?.method === "tools/call") {
    const level = await kept(scope.sessionId);
    if (level) scope.logLevel = level;
  }
}

const entry = (session: string) => `https://mcp-sessions.tool-runtime.internal/${session}/log-level`;

async function keep(session: string, level: LoggingLevel): Promise<void> {
  try {
    if (typeof caches === "undefined") return;
    await (
      await caches.open(CACHE_NAME)
    ).put(entry(session), new Response(level, { headers: { "cache-control": `max-age=${KEPT_SECONDS}` } }));
  } catch (err) {
    console.warn(JSON.stringify({ msg: "session log level not kept", error: String(err) }));
  }
}

async function kept(session: string): Promise<LoggingLevel | undefined> {
  try {
    if (typeof caches === "undefined") return undefined;
    const res = await (await caches.open(CACHE_NAME)).match(entry(session));
    const level = res ? await res.text() : undefined;
    return isLoggingLevel(level) ? level : undefined;
  } catch {
    return undefined;
  }
}
