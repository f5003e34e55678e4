/**
 * Which CPU reports the runtime believes. A provider's invocation report (a tail event) names its
 * execution and attempt only through a line the provider logs (src/audit/tail-reports.ts), and a
 * provider Worker's code can log any line: without a check, it could write CPU figures onto any
 * execution whose id it knew. So each attempt the runtime dispatches carries a nonce,
 *
 *   nonce = first 128 bits of HMAC-SHA-256(deployment key, "<execution_id>#<attempt>#<h>") "-" <h>
 *
 * (32 hex digits, a dash, and `h`, the execution's tenant's hash: 8 hex digits, which name its
 * audit shard, src/audit/shards.ts, so a report reaches the shard of its record; the MAC covers
 * it, so a provider cannot send a report elsewhere. A nonce of 32 hex digits alone, the MAC of
 * "<execution_id>#<attempt>", is an attempt dispatched before the hash was added: believed as
 * before, its shard unknown),
 *
 * which the provider SDK logs back in its line (ToolCall.report_nonce, providers/sdk/protocol.ts),
 * and a report is believed only when its nonce is the one computed for the execution and attempt
 * it names. A provider learns the nonce of the attempts it was sent, and no other: the key lives in
 * the registry object (durable-objects/report-key.ts) and never leaves the runtime. Stateless, so
 * the isolate that reads a report need not be the one that dispatched the attempt.
 *
 * The key is fetched once per isolate. When it cannot be had, an attempt goes out without a nonce
 * (the call is never held up for its CPU report) and its report is then not believed.
 */
import { registryStub } from "../object-stubs.ts";
import { withTimeout } from "../with-timeout.ts";
import { tenantHash } from "./shards.ts";

const KEY_FETCH_MS = 2_000;

/** A nonce: 32 hex digits, then a dash and the tenant's hash (8 hex digits) unless it is an older one. */
export const REPORT_NONCE = /^[0-9a-f]{32}(?:-[0-9a-f]{8})?$/;

/** The tenant hash a nonce carries, if any. */
export function tenantHashOf(nonce: string | null): string | undefined {
  return nonce !== null && nonce.length === 41 ? nonce.slice(33) : undefined;
}

// The CryptoKey, not a promise of it: a promise begun by one request and awaited by another
// can be cancelled with the first request in Workers.
let cachedKey: CryptoKey | undefined;

async function reportKey(env: Env): Promise<CryptoKey> {
  if (cachedKey) return cachedKey;
  // Bounded: an attempt waits for this only once per isolate, and never long.
  const hex = await withTimeout(registryStub(env).reportKey(), KEY_FETCH_MS, "the report key did not come in time");
  cachedKey = await importReportKey(hex);
  return cachedKey;
}

/** The HMAC key of 64 hex digits. */
export function importReportKey(hex: string): Promise<CryptoKey> {
  const bytes = new Uint8Array((hex.match(/../g) ?? []).map((h) => parseInt(h, 16)));
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The nonce of one attempt under `key`, carrying `tenantHash` (none: the older form). */
export async function nonceFor(
  key: CryptoKey,
  executionId: string,
  attempt: number,
  tenantHash?: string,
): Promise<string> {
  const signed = tenantHash === undefined ? `${executionId}#${attempt}` : `${executionId}#${attempt}#${tenantHash}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(signed)));
  const hex = [...mac.subarray(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return tenantHash === undefined ? hex : `${hex}-${tenantHash}`;
}

/** The nonce to send with an attempt, or undefined when the deployment's key cannot be had now. */
export async function attemptNonce(
  env: Env,
  executionId: string,
  attempt: number,
  tenant: string,
): Promise<string | undefined> {
  try {
    return await nonceFor(await reportKey(env), executionId, attempt, tenantHash(tenant));
  } catch (err) {
    console.warn(
      JSON.stringify({
        msg: "cpu report nonce unavailable; this attempt's report will not be believed",
        execution_id: executionId,
        attempt,
        error: String(err),
      }),
    );
    return undefined;
  }
}

/** The nonce each report should carry, by report; throws when the key cannot be had. */
export async function expectedNonces<R extends { execution_id: string; attempt: number; nonce: string | null }>(
  env: Env,
  reports: readonly R[],
): Promise<Map<R, string>> {
  const key = await reportKey(env);
  return new Map(
    await Promise.all(
      reports.map(async (r) => [r, await nonceFor(key, r.execution_id, r.attempt, tenantHashOf(r.nonce))] as const),
    ),
  );
}
