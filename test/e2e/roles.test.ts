/**
 * Roles inside a tenant, beyond the privilege matrix (test/e2e/privilege-matrix.test.ts): a
 * fast-path execution is its agent's like any other; an idempotency key is the agent's own and
 * replays only to a caller that still reaches the tool; self-approval when a tenant allows it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { asAdmin, bearer, call } from "./http.ts";
import { tenant } from "./tenants.ts";

const minted: string[] = [];
afterAll(async () => {
  for (const id of minted) await asAdmin("DELETE", `/v1/admin/keys/${id}`);
});

async function key(t: string, agent: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await asAdmin("POST", "/v1/admin/keys", { tenant: t, agent, channels: ["*"], ...fields });
  expect(res.status).toBe(201);
  minted.push(res.body.key_id);
  return res.body.key;
}

const as = (k: string) => ({
  run: (body: unknown) => call("POST", "/v1/executions", body, bearer(k)),
  get: (id: string) => call("GET", `/v1/executions/${id}`, undefined, bearer(k)),
  call: (method: string, path: string, body?: unknown) => call(method, path, body, bearer(k)),
});
const echo = (o: Record<string, unknown> = {}) => ({
  tool: "lab.echo",
  input: { hello: "roles" },
  limits: { timeout_ms: 20_000 },
  ...o,
});

describe("roles inside a tenant", () => {
  it("keeps a fast-path execution its agent's: another agent of the tenant gets 404, the tenant admin sees it", async () => {
    const t = `roles-${crypto.randomUUID()}`;
    const [mine, other, admin] = [
      await key(t, "bot-a"),
      await key(t, "bot-b"),
      await key(t, "ops", { role: "tenant_admin" }),
    ];
    const done = await as(mine).run(echo());
    expect(done.status).toBe(200);
    const id = done.body.execution_id;
    expect((await as(mine).get(id)).body).toMatchObject({ execution_id: id, status: "succeeded" });
    const hidden = await as(other).get(id);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe("execution_not_found");
    expect((await as(other).call("POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 })).status).toBe(404);
    expect((await as(other).call("GET", `/v1/executions/${id}/stream`)).status).toBe(404);
    expect((await as(admin).get(id)).body).toMatchObject({ execution_id: id, status: "succeeded" });
  });

  it("scopes an idempotency key to its agent: another agent's same key starts its own execution", async () => {
    const t = `roles-${crypto.randomUUID()}`;
    const [mine, other] = [await key(t, "bot-a"), await key(t, "bot-b")];
    const body = echo({ idempotency_key: `k-${crypto.randomUUID()}` });
    const first = await as(mine).run(body);
    const again = await as(mine).run(body);
    expect(again.body.execution_id).toBe(first.body.execution_id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const theirs = await as(other).run(body);
    expect(theirs.status).toBe(200);
    expect(theirs.body.execution_id).not.toBe(first.body.execution_id);
    expect(theirs.headers.get("idempotent-replayed")).not.toBe("true");
  });

  it("checks the caller's channels before it replays a keyed execution", async () => {
    const t = `roles-${crypto.randomUUID()}`;
    const reaching = await key(t, "bot-a");
    const body = echo({ idempotency_key: `k-${crypto.randomUUID()}` });
    expect((await as(reaching).run(body)).status).toBe(200);
    // The same agent, with a key that no longer reaches any provider: the tool is hidden from
    // it, and a hidden tool answers as an unknown one — before any replay.
    const narrowed = await key(t, "bot-a", { channels: [] });
    const refused = await as(narrowed).run(body);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: "tool_not_found" });
  });

  it("lets an approver decide its own call only where the tenant's rule allows self-approval", async () => {
    for (const [family, expected] of [
      ["gate-read", 403],
      ["gate-self", 200],
    ] as const) {
      const t = tenant(family);
      const judge = await key(t, "judge", { role: "approver" });
      const started = await as(judge).run({
        tool: "lab.was_erased",
        mode: "async",
        input: { name: "x" },
        limits: { timeout_ms: 60_000 },
      });
      expect(started.body.status).toBe("awaiting_approval");
      const decided = await as(judge).call("POST", `/v1/executions/${started.body.execution_id}/approve`, {});
      expect(decided.status, family).toBe(expected);
      if (expected === 403) {
        expect(decided.body.error).toMatchObject({ code: "forbidden", details: { reason: "self approval" } });
        await as(judge).call("POST", `/v1/executions/${started.body.execution_id}/cancel`, { grace_ms: 0 });
      } else {
        expect(decided.body.approval.decision).toMatchObject({ decision: "approved", approver: "judge" });
      }
    }
  });
});
