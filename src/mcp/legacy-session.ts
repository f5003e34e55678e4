/**
 * The 2025 lane's session id (handler.ts, "Sessions"): `initialize` answers with a random
 * `Mcp-Session-Id`, nothing stored, and a `notifications/cancelled` on a later POST of that
 * session cancels the followed call it names, from any isolate (call.ts keys it).
 */
import { cancel } from "../execution/service.ts";
import { keyedObjectId } from "../execution/ids.ts";
import { sessionCallKey } from "./call.ts";
import { callContext, type McpScope } from "./scope.ts";

const SESSION_ID = /^[0-9a-f]{32}$/;

/** A session id this face gave out (anything else is ignored, not refused). */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

/** A new session id: 16 random bytes, hex. */
export function newSessionId(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function isInitialize(body: unknown): boolean {
  return (body as { method?: unknown } | undefined)?.method === "initialize";
}

/** A 2025 client's cancel of an earlier call (no 2026 envelope: modern clients close the stream instead). */
export function isLegacyCancel(body: unknown): body is { params: { requestId: string | number } } {
  const m = body as { method?: unknown; params?: { requestId?: unknown; _meta?: Record<string, unknown> } } | undefined;
  const id = m?.params?.requestId;
  return (
    m?.method === "notifications/cancelled" &&
    (typeof id === "string" || typeof id === "number") &&
    m.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === undefined
  );
}

/** Cancels the followed call keyed by (session, request id), if there is one (docs/contract.md#cancellation, default grace). */
export function cancelSessionCall(scope: McpScope, requestId: string | number): void {
  const key = sessionCallKey(scope.sessionId!, requestId);
  if (!key) return;
  const executionId = keyedObjectId(scope.env, scope.caller.tenant, scope.caller.agent, key);
  scope.waitUntil(cancel(callContext(scope), executionId, undefined).catch(() => {}));
}
