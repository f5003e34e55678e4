/**
 * The one-time operator bootstrap (src/routes/bootstrap.ts) through the Worker's own fetch, in
 * workerd with the real registry object and KV. Storage is this file's own (the test plugin
 * isolates files): the bootstrap can be used once here, so the scenario that uses it is one
 * test, in order. The Worker gets BOOTSTRAP_TOKEN in a copy of the env, as a secret would be.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { registryStub } from "../../src/object-stubs.ts";

const TOKEN = `bootstrap-${crypto.randomUUID()}-${crypto.randomUUID()}`;
const withToken: Env = { ...env, BOOTSTRAP_TOKEN: TOKEN };

async function send(e: Env, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, init) as Request<unknown, IncomingRequestCfProperties>,
    e,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json() };
}

const bootstrap = (token: string | undefined, body?: object, e: Env = withToken) =>
  send(e, "/v1/admin/bootstrap", {
    method: "POST",
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });

describe("POST /v1/admin/bootstrap", () => {
  it("mints one operator key, once: a wrong token is 401 before; of five at once exactly one wins; every later attempt is 403", async () => {
    const tenant = `ops-${crypto.randomUUID().slice(0, 8)}`;
    expect((await bootstrap(`${TOKEN}x`, { tenant })).body.error.code).toBe("unauthenticated");
    expect((await bootstrap(undefined, { tenant })).status).toBe(401);

    const answers = await Promise.all(Array.from({ length: 5 }, () => bootstrap(TOKEN, { tenant })));
    const won = answers.filter((a) => a.status === 201);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((a) => a.status !== 201))
      expect(lost).toMatchObject({
        status: 403,
        body: { error: { code: "forbidden", details: { reason: "bootstrap_used" } } },
      });
    const minted = won[0].body;
    expect(minted).toMatchObject({ tenant, agent: "operator", role: "admin", channels: ["*"], capabilities: [] });
    expect(minted.key).toMatch(/^trt_/);

    // The key is an operator's, and the losers' keys are gone: the tenant has exactly the winner's.
    const listed = await send(env, `/v1/admin/keys?tenant=${tenant}`, {
      headers: { authorization: `Bearer ${minted.key}` },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([minted.key_id]);

    // Durable, in the registry object: the row names the winner's key.
    expect(await registryStub(env).bootstrapUsed()).toMatchObject({ key_id: minted.key_id, tenant, agent: "operator" });

    const again = await bootstrap(TOKEN);
    expect(again).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden", details: { reason: "bootstrap_used" } } },
    });
    expect(again.body.error.message).toMatch(/POST \/v1\/admin\/keys/);
    expect((await bootstrap("a-wrong-token-that-is-long-enough-to-look-real")).status).toBe(403);
  });

  it("does not exist without BOOTSTRAP_TOKEN: 404 like an unknown route", async () => {
    const { BOOTSTRAP_TOKEN: _none, ...without } = withToken;
    expect(await bootstrap(TOKEN, undefined, without)).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
  });
});
