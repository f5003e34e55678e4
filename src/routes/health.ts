/**
 * Liveness and readiness (docs/contract.md#routes operations). Both are public, so both say as little as
 * a load balancer needs: `/readyz` answers its status only, from a check this isolate made at
 * most READY_CACHE_MS ago (one check at a time), so a flood of probes costs one registry read
 * and one manifest call per provider per isolate per interval, not per probe. What the check
 * found — registry version, tools, each provider's reachability and error, the catalog's
 * problems — is for operators (`GET /v1/admin/readiness`, src/routes/admin.ts).
 */
import { reply } from "../codec/negotiate.ts";
import { Hono } from "hono";
import { loadConfig, providerBinding } from "../config.ts";
import type { AppEnv } from "../app-env.ts";
import { auditStoreReadiness, type AuditDbReadiness } from "../audit/schema.ts";
import { auditShards } from "../audit/shards.ts";
import { registryStub } from "../object-stubs.ts";
import { withTimeout } from "../with-timeout.ts";

const PING_TIMEOUT_MS = 2_000;
/** How long one readiness check answers for, in this isolate. */
export const READY_CACHE_MS = 2_000;

/** What the check found (operators only). */
export interface Readiness {
  status: "ready" | "not_ready";
  checked_at: string;
  registry_version: number;
  tools: number;
  providers: { name: string; reachable: boolean; error?: string }[];
  /** Whether the audit database holds the schema this code needs (migrations/ applied). */
  audit_db: AuditDbReadiness;
  problems: string[];
}

let cached: { at: number; check: Promise<Readiness> } | undefined;

/** The latest check of this isolate, or a new one when it is older than READY_CACHE_MS. */
export function readiness(env: Env, now = Date.now()): Promise<Readiness> {
  // A clock that went back (or a check from another timeline) is stale too.
  if (!cached || now < cached.at || now - cached.at >= READY_CACHE_MS) {
    const check = checkReadiness(env);
    cached = { at: now, check };
    // A check that failed outright is not kept: the next probe tries again.
    check.catch(() => {
      if (cached?.check === check) cached = undefined;
    });
  }
  return cached.check;
}

/**
 * Ready when the registry holds tools, every configured provider answers its manifest now, and
 * the audit database has been migrated (without its schema every call's record would fail).
 */
async function checkReadiness(env: Env): Promise<Readiness> {
  const config = loadConfig(env);
  const auditDb = auditStoreReadiness(auditShards(env));
  const snapshot = await registryStub(env).snapshot();
  const providers = await Promise.all(
    config.providers.map(async (p) => {
      const service = providerBinding(env, p);
      try {
        if (!service) throw new Error(`no service binding ${p.binding}`);
        await withTimeout(service.manifest(), PING_TIMEOUT_MS, "no answer in time");
        return { name: p.name, reachable: true };
      } catch (err) {
        return { name: p.name, reachable: false, error: (err as Error).message };
      }
    }),
  );
  const tools = Object.keys(snapshot.tools).length;
  const audit_db = await auditDb;
  const ready = tools > 0 && providers.every((p) => p.reachable) && audit_db.ready;
  return {
    status: ready ? "ready" : "not_ready",
    checked_at: new Date().toISOString(),
    registry_version: snapshot.version,
    tools,
    providers,
    audit_db,
    problems: snapshot.problems,
  };
}

export const health = new Hono<AppEnv>();

/** The Worker answers. Touches nothing else, so it stays cheap for load balancers. */
health.get("/healthz", (c) => reply(c, { status: "ok" }));

/** Ready or not, and nothing else: no credential, no names, no error text. */
health.get("/readyz", async (c) => {
  const { status } = await readiness(c.env).catch((): Pick<Readiness, "status"> => ({ status: "not_ready" }));
  return reply(c, { status }, status === "ready" ? 200 : 503);
});
