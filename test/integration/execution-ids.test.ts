/**
 * A fast-path id that has no record is answered from at most two reads of the audit store, and a
 * forged one from none (src/execution/ids.ts, src/audit/records.ts): the service runs against
 * the real audit database, wrapped so that the test sees every statement it prepares.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/contract.ts";
import { loadConfig } from "../../src/config.ts";
import { newEdgeExecutionId } from "../../src/execution/ids.ts";
import { get } from "../../src/execution/service.ts";
import { withAuditDb } from "./worker-http.ts";

const caller = (): Caller => ({
  tenant: `ids-${crypto.randomUUID().slice(0, 8)}`,
  agent: "agent",
  capabilities: [],
  channels: ["*"],
  role: "tenant",
});

/** The real AUDIT_DB, counting the statements prepared on it. */
function counted(): { env: Env; reads: () => number } {
  let reads = 0;
  const db = env.AUDIT_DB;
  const wrapped = new Proxy(db, {
    get(target, name) {
      if (name === "prepare") {
        return (sql: string) => {
          reads++;
          return target.prepare(sql);
        };
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // One shard, so every read is counted here (src/audit/shards.ts).
  return { env: withAuditDb(env, wrapped), reads: () => reads };
}

describe("fast-path ids without a record", () => {
  it("refuses a forged id with a recent timestamp without reading the store", async () => {
    const store = counted();
    const forged = `exec_e${Date.now().toString(16).padStart(12, "0")}${"ab".repeat(16)}`;
    const answer = await get({ env: store.env, caller: caller() }, forged);
    expect(answer).toMatchObject({ ok: false, error: { code: "execution_not_found" } });
    expect(store.reads()).toBe(0);
  });

  it("answers a real id whose call is long over from one read", async () => {
    const store = counted();
    const old = Date.now() - loadConfig(env).systemMaxTimeoutMs - 60_000;
    const answer = await get({ env: store.env, caller: caller() }, newEdgeExecutionId(env, old));
    expect(answer).toMatchObject({ ok: false, error: { code: "execution_not_found" } });
    expect(store.reads()).toBe(1);
  });

  it("reads once more, and only once, for a real id whose record may still be in the queue", async () => {
    const store = counted();
    const answer = await get({ env: store.env, caller: caller() }, newEdgeExecutionId(env, Date.now()));
    expect(answer).toMatchObject({ ok: false, error: { code: "execution_not_found" } });
    expect(store.reads()).toBe(2);
  });
});
