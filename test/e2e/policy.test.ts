/**
 * Callers and policy against the real stack: credentials, tenancy, the three capability
 * levels, limits and rate limiting, roles, and http.request's refusals.
 */
import { importJWK, SignJWT, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { asAdmin, baseUrl, bearer, call, execute, ROOMY } from "./http.ts";
import { hold, newLatch, release } from "./latch.ts";
import { tenant } from "./tenants.ts";
import { provided } from "./stack.ts";

const privateJwk = provided("jwtPrivateKey") as JWK;
const issuer = provided("jwtIssuer");
const audience = provided("jwtAudience");
const JWT_OPERATOR_GROUP = provided("jwtOperatorGroup");

async function newKey(fields: Record<string, unknown>): Promise<{ key: string; key_id: string }> {
  // Keys reach no provider unless told (least privilege): these tests reach all unless they say.
  const res = await asAdmin("POST", "/v1/admin/keys", { channels: ["*"], ...fields });
  expect(res.status).toBe(201);
  return res.body;
}

const as = (key: string) => ({
  call: (method: string, path: string, body?: unknown) => call(method, path, body, bearer(key)),
  execute: (body: unknown) => call("POST", "/v1/executions", body, bearer(key)),
});

async function signed(
  claims: Record<string, unknown>,
  options: {
    alg?: string;
    kid?: string;
    key?: JWK;
    exp?: number | string;
    nbf?: number | string;
    iss?: string;
    aud?: string;
    sub?: string;
  } = {},
): Promise<string> {
  const alg = options.alg ?? "ES256";
  const key = await importJWK(options.key ?? privateJwk, alg);
  const jwt = new SignJWT({ tenant: JWT_TENANT, ...claims })
    .setProtectedHeader({ alg, kid: options.kid ?? "e2e-1" })
    .setSubject(options.sub ?? "jwt-agent")
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? audience)
    .setIssuedAt()
    .setExpirationTime(options.exp ?? "5m");
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  return jwt.sign(key);
}

function expect401(res: { status: number; body: any }) {
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: "unauthenticated", message: "missing or invalid credentials" });
}

const math = { tool: "math.evaluate", input: { expression: "6 * 7" }, limits: ROOMY };
const unique = (what: string) => `${what}-${crypto.randomUUID().slice(0, 13)}`;
/** The tenant of this run's signed tokens (a name of its own, so no other file or run shares it). */
const JWT_TENANT = unique("jwt-tenant");

/** The audit record of one execution, once the audit queue has brought it (bounded). */
async function auditRecord(tenant: string, executionId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const record = (await asAdmin("GET", `/v1/audit?tenant=${tenant}&limit=100`)).body.records.find(
      (r: any) => r.execution_id === executionId,
    );
    if (record) return record;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no audit record for ${executionId}`);
}

describe("credentials", () => {
  it("refuses a call without credentials, with another scheme, or with an unknown key", async () => {
    expect401(await call("POST", "/v1/executions", math, { authorization: "" }));
    expect401(await call("POST", "/v1/executions", math, { authorization: "Basic dXNlcjpwYXNz" }));
    expect401(await call("POST", "/v1/executions", math, bearer("trt_no_such_key_at_all_0000000000")));
    expect401(await call("GET", "/v1/tools", undefined, bearer("not-a-credential")));
  });

  it("accepts a new API key at once and refuses it at once after revocation", async () => {
    const acme = unique("acme");
    const { key, key_id } = await newKey({ tenant: acme, agent: "order-assistant" });
    expect(key).toMatch(/^trt_/);
    expect((await as(key).execute(math)).body.output).toEqual({ value: 42 });
    const listed = await asAdmin("GET", `/v1/admin/keys?tenant=${acme}`);
    expect(
      listed.body.keys.some((k: { key_id: string; key?: string }) => k.key_id === key_id && k.key === undefined),
    ).toBe(true);
    expect((await asAdmin("DELETE", `/v1/admin/keys/${key_id}`)).body.revoked_at).toEqual(expect.any(String));
    expect401(await as(key).execute(math));
  });

  it("accepts a JWT from the configured issuer, signed with a configured key", async () => {
    const res = await as(await signed({ capabilities: [], channels: ["*"] })).execute(math);
    expect(res.status).toBe(200);
    expect(res.body.output).toEqual({ value: 42 });
  });

  it("refuses alg none, a wrong algorithm, bad exp, nbf, aud, iss and an unknown kid", async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = (h: object) => Buffer.from(JSON.stringify(h)).toString("base64url");
    const payload = header({ tenant: JWT_TENANT, sub: "x", iss: issuer, aud: audience, exp: now + 300 });
    const tokens = [
      `${header({ alg: "none", typ: "JWT" })}.${payload}.`,
      `${header({ alg: "HS256", kid: "e2e-1" })}.${payload}.${Buffer.from("forged").toString("base64url")}`,
      await signed({}, { exp: now - 60 }),
      await signed({}, { nbf: now + 3600 }),
      await signed({}, { aud: "someone-else" }),
      await signed({}, { iss: "https://evil.example" }),
      await signed({}, { kid: "no-such-kid" }),
    ];
    for (const token of tokens) expect401(await as(token).execute(math));
  });
});

describe("JWT claims", () => {
  it("takes the tenant from the tenant claim and the agent from sub", async () => {
    const tenant = unique("jwt");
    const token = await signed({ tenant, capabilities: ["network:*"], channels: ["*"] }, { sub: "research-assistant" });
    const res = await as(token).execute(math);
    expect(res.status).toBe(200);
    expect(await auditRecord(tenant, res.body.execution_id)).toMatchObject({ tenant, agent: "research-assistant" });
    // The agent is the one level 2 judges: research-assistant may not send.
    const send = await as(token).execute({ tool: "http.request", input: { url: "https://api.example.com/" } });
    expect(send.status).toBe(403);
    expect(send.body.error.details).toMatchObject({ level: 2, profile: "research-assistant" });
    // The execution is the tenant's: a token for another tenant cannot see it.
    const other = await signed({ tenant: unique("jwt") }, { sub: "research-assistant" });
    expect((await as(other).call("GET", `/v1/executions/${res.body.execution_id}`)).status).toBe(404);
    expect((await as(token).call("GET", `/v1/executions/${res.body.execution_id}`)).status).toBe(200);
  });

  it("refuses a token without a tenant claim or without sub", async () => {
    expect401(await as(await signed({ tenant: undefined })).execute(math));
    expect401(await as(await signed({ tenant: "" })).execute(math));
    const now = Math.floor(Date.now() / 1000);
    const noSub = await new SignJWT({ tenant: unique("jwt") })
      .setProtectedHeader({ alg: "ES256", kid: "e2e-1" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime(now + 300)
      .sign(await importJWK(privateJwk, "ES256"));
    expect401(await as(noSub).execute(math));
  });

  it("grants capabilities from a space-separated scope when the token has no capabilities claim", async () => {
    const host = { tool: "http.request", mode: "dry_run", input: { url: "https://api.example.com/x" } };
    const scoped = await signed(
      { tenant: unique("jwt"), scope: "openid network:api.example.com", channels: ["*"] },
      { sub: "order-assistant" },
    );
    expect((await as(scoped).execute(host)).body.capability).toMatchObject({
      allowed: true,
      decision: { level3: { granted_by: "network:api.example.com" } },
    });
    const elsewhere = await as(scoped).execute({
      ...host,
      mode: "sync",
      input: { url: "https://other.example.com/x" },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error.details).toMatchObject({ level: 3, required: "network:other.example.com" });
    // A capabilities claim wins over scope.
    const both = await signed(
      {
        tenant: unique("jwt"),
        scope: "network:api.example.com",
        capabilities: ["network:other.example.com"],
        channels: ["*"],
      },
      { sub: "order-assistant" },
    );
    expect((await as(both).execute({ ...host, mode: "sync" })).body.error.details).toMatchObject({
      level: 3,
      required: "network:api.example.com",
    });
  });

  it("reaches only the providers in the channels claim", async () => {
    const token = await signed({ tenant: unique("jwt"), channels: ["community"] });
    // A tool none of its providers offers is one it cannot see: not found, like a missing one.
    const refused = await as(token).execute(math);
    expect([refused.status, refused.body.error.code]).toEqual([404, "tool_not_found"]);
    expect(
      (await as(token).execute({ tool: "text.stats", input: { text: "a b" }, limits: ROOMY })).body.execution.worker,
    ).toBe("community");
    // Without the claim, no channel (least privilege): it sees no tool at all.
    const bare = await as(await signed({ tenant: unique("jwt") })).execute(math);
    expect([bare.status, bare.body.error?.code]).toEqual([404, "tool_not_found"]);
  });
});

describe("tenancy", () => {
  let tenantA: ReturnType<typeof as>;
  let tenantB: ReturnType<typeof as>;
  const [nameA, nameB] = [unique("tenant-a"), unique("tenant-b")];
  beforeAll(async () => {
    tenantA = as((await newKey({ tenant: nameA, agent: "dev-agent" })).key);
    tenantB = as((await newKey({ tenant: nameB, agent: "dev-agent" })).key);
  });

  it("answers another tenant's execution id exactly like an unknown one, on GET, stream and cancel", async () => {
    const started = await tenantA.execute({
      tool: "demo.countdown",
      mode: "async",
      input: { from: 3, interval_ms: 50 },
    });
    const id = started.body.execution_id;
    const unknown = `exec_${"d".repeat(64)}`;
    for (const [method, suffix] of [
      ["GET", ""],
      ["GET", "/stream"],
      ["POST", "/cancel"],
    ] as const) {
      const theirs = await tenantB.call(method, `/v1/executions/${id}${suffix}`);
      const nobodys = await tenantB.call(method, `/v1/executions/${unknown}${suffix}`);
      expect(theirs.status).toBe(404);
      expect(theirs.body.error.code).toBe("execution_not_found");
      expect({ ...theirs.body.error, details: undefined, message: undefined }).toEqual({
        ...nobodys.body.error,
        details: undefined,
        message: undefined,
      });
    }
    expect((await tenantA.call("GET", `/v1/executions/${id}`)).status).toBe(200);
  });

  it("refuses a body that names another tenant", async () => {
    const res = await tenantA.execute({ ...math, tenant: nameB });
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ field: "tenant" });
  });
});

describe("capabilities, three levels", () => {
  it("level 1: a tool offered only outside the caller's channels is not found, like a missing one", async () => {
    const key = (await newKey({ tenant: unique("chan"), agent: "dev-agent", channels: ["community"] })).key;
    const res = await as(key).execute(math);
    expect([res.status, res.body.error.code]).toEqual([404, "tool_not_found"]);
    expect((await as(key).execute({ tool: "text.stats", input: { text: "a b" } })).body.execution.worker).toBe(
      "community",
    );
  });

  it("level 2: blocks a send tool that does not fit the agent's profile, synchronously", async () => {
    const key = (await newKey({ tenant: unique("intent"), agent: "research-assistant", capabilities: ["network:*"] }))
      .key;
    const res = await as(key).execute({ tool: "http.request", input: { url: "https://api.example.com/" } });
    expect(res.status).toBe(403);
    expect(res.body.error.details).toMatchObject({ level: 2, profile: "research-assistant" });
  });

  it("level 2: refuses write and delete tools to an agent whose profile may only read, and runs them for one whose profile may", async () => {
    // An agent with no profile of its own gets the verifier's `default` one: it may read, nothing more.
    const reader = (await newKey({ tenant: unique("intent"), agent: "unprofiled-agent" })).key;
    const writer = (await newKey({ tenant: unique("intent"), agent: "dev-agent" })).key;
    for (const [tool, effect, answer] of [
      ["lab.write", "write", "wrote"],
      ["lab.delete", "delete", "deleted"],
    ] as const) {
      const refused = await as(reader).execute({ tool, input: { record: "r-1" }, limits: ROOMY });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: "forbidden",
        details: { level: 2, profile: "default", reason: expect.stringContaining(`may not ${effect}`) },
      });
      expect(refused.body.execution_id).toBeUndefined();
      const allowed = await as(writer).execute({ tool, input: { record: "r-1" }, limits: ROOMY });
      expect(allowed.status).toBe(200);
      expect(allowed.body.output).toEqual({ [answer]: "r-1" });
      // Verified before it ran, not in the background.
      expect(allowed.body.capability.level2).toMatchObject({ verdict: "aligned", mode: "sync", profile: "dev-agent" });
    }
  });

  it("level 2: verifies a read-only tool in the background, records the verdict in the audit, and reuses it", async () => {
    const tenant = unique("intent");
    const key = (await newKey({ tenant, agent: "research-assistant" })).key;
    const res = await as(key).execute({ tool: "lab.echo", input: { x: 1 }, limits: { timeout_ms: 20_000 } });
    expect(res.status).toBe(200); // never blocked, even though lab.* is outside the profile
    expect(res.body.capability.level2).toMatchObject({ verdict: "pending", mode: "async" });
    // The verdict reaches that execution's audit record once the verifier has answered.
    let level2: any;
    for (let i = 0; i < 100 && level2?.verdict !== "misaligned"; i++) {
      const records = (await asAdmin("GET", `/v1/audit?tenant=${tenant}`)).body.records;
      level2 = records.find((r: any) => r.execution_id === res.body.execution_id)?.capability.level2;
      if (level2?.verdict !== "misaligned") await new Promise((r) => setTimeout(r, 100));
    }
    expect(level2).toMatchObject({ verdict: "misaligned", mode: "async", profile: "research-assistant" });
    // The same agent's next call to the tool carries the cached verdict, still without blocking.
    const next = await as(key).execute({ tool: "lab.echo", input: { x: 2 }, limits: { timeout_ms: 20_000 } });
    expect(next.status).toBe(200);
    expect(next.body.capability.level2).toMatchObject({ verdict: "misaligned", mode: "async", cached: true });
  });

  it("level 3: refuses a network tool without a grant for the host, and grants it with one", async () => {
    const none = (
      await newKey({ tenant: unique("caps"), agent: "order-assistant", capabilities: ["network:other.example"] })
    ).key;
    const denied = await as(none).execute({ tool: "http.request", input: { url: "https://api.example.com/x" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toMatchObject({ level: 3, required: "network:api.example.com" });
    const wildcard = (
      await newKey({ tenant: unique("caps"), agent: "order-assistant", capabilities: ["network:*.example.com"] })
    ).key;
    const dry = await as(wildcard).execute({
      tool: "http.request",
      mode: "dry_run",
      input: { url: "https://api.example.com/x" },
    });
    expect(dry.body.capability).toMatchObject({
      allowed: true,
      decision: { level3: { granted_by: "network:*.example.com" } },
    });
  });
});

describe("limits and rate limiting", () => {
  it("answers a burst over the tenant's rate with 429 and Retry-After, creating no execution", async () => {
    const key = (await newKey({ tenant: tenant("capped"), agent: "dev-agent" })).key;
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await as(key).execute(math)); // a burst of 3, never refilled in time
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = results.filter((r) => r.status === 429);
    for (const r of refused) {
      expect(r.body.error).toMatchObject({
        code: "rate_limited",
        retryable: true,
        details: { retry_after_ms: expect.any(Number) },
      });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.body.execution_id).toBeUndefined();
    }
  });

  it("clamps an asked-for timeout to the tenant's maximum and says so", async () => {
    const key = (await newKey({ tenant: tenant("narrow"), agent: "dev-agent" })).key;
    const res = await as(key).execute({ ...math, limits: { timeout_ms: 60_000 } });
    expect(res.body.execution.timeout_ms).toBe(10_000);
  });

  it("refuses a payload over the tenant's maximum with 413", async () => {
    const key = (await newKey({ tenant: tenant("narrow"), agent: "dev-agent" })).key;
    const res = await as(key).execute({ tool: "lab.echo", input: { blob: "x".repeat(5_000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.details).toMatchObject({ max_bytes: 4096 });
  });

  /** Retries `call` until its status is `status`, bounded: a slot frees when the provider's call returns. */
  async function until(status: number, call: () => Promise<{ status: number }>, withinMs = 15_000) {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const res = await call();
      if (res.status === status || Date.now() > deadline) return res;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  // A call that may wait (async, or sync with a second of budget or more) waits for a slot
  // instead (waiting.test.ts); one that may not is refused as before.
  const shortSync = { tool: "math.evaluate", input: { expression: "1" }, limits: { timeout_ms: 500 } };

  it("refuses a call that may not wait over the tenant's concurrency with 429, and admits again when one ends", async () => {
    const key = (await newKey({ tenant: tenant("slots"), agent: "dev-agent" })).key;
    // Two calls that run until told to stop: the tenant is at its limit for as long as the test needs.
    const count = { ...hold(newLatch(), { heed_cancel: true }), mode: "async", limits: { timeout_ms: 60_000 } };
    const first = await as(key).execute(count);
    const second = await as(key).execute(count);
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await as(key).execute(shortSync);
    expect(third.status).toBe(429);
    expect(third.body.error.details).toMatchObject({ reason: "concurrency", limit: 2 });
    // It stops when told: its slot is free once its provider call has returned.
    expect(
      (await as(key).call("POST", `/v1/executions/${first.body.execution_id}/cancel`)).body.cancellation.outcome,
    ).toBe("cooperative");
    expect((await until(200, () => as(key).execute(shortSync))).status).toBe(200);
    await as(key).call("POST", `/v1/executions/${second.body.execution_id}/cancel`, { grace_ms: 0 });
  });

  it("gives a tenant's slot back when a forced cancel ends a handler that ignores its stop notice", async () => {
    const key = (await newKey({ tenant: tenant("slots"), agent: "dev-agent" })).key;
    // Handlers that ignore their stop notice and run until this test releases them.
    const [latchA, latchB] = [newLatch(), newLatch()];
    const a = await as(key).execute({ ...hold(latchA), mode: "async", limits: { timeout_ms: 30_000 } });
    const b = await as(key).execute({ ...hold(latchB), mode: "async", limits: { timeout_ms: 30_000 } });
    expect([a.status, b.status]).toEqual([202, 202]);
    try {
      // The tenant is at its limit while both run.
      const refused = await as(key).execute(shortSync);
      expect([refused.status, refused.body.error.details?.reason]).toEqual([429, "concurrency"]);
      // Forced: lab.hold ignores its stop notice, so the runtime stops waiting at once and ends
      // the provider's invocation (docs/contract.md#cancellation) ...
      const cancelled = await as(key).call("POST", `/v1/executions/${a.body.execution_id}/cancel`, { grace_ms: 0 });
      expect(cancelled.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "forced" } });
      // ... so its slot is handed on while its latch is still closed.
      expect((await until(200, () => as(key).execute(shortSync))).status).toBe(200);
    } finally {
      await release(latchA);
      await release(latchB);
    }
  });
});

describe("least privilege", () => {
  it("gives a new key without channels no provider to reach", async () => {
    const bare = unique("bare");
    const { key } = await newKey({ tenant: bare, agent: "dev-agent", channels: undefined });
    const res = await as(key).execute(math);
    expect([res.status, res.body.error.code]).toEqual([404, "tool_not_found"]);
    const listed = (await asAdmin("GET", `/v1/admin/keys?tenant=${bare}`)).body.keys;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ channels: [], capabilities: [], role: "agent" });
  });

  it("gives a JWT without channels no provider to reach", async () => {
    const res = await as(await signed({})).execute(math);
    expect([res.status, res.body.error.code]).toEqual([404, "tool_not_found"]);
  });

  it("never makes an operator of a JWT's own role claim", async () => {
    const res = await as(await signed({ role: "admin", channels: ["*"] })).call("GET", "/v1/admin/keys");
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("forbidden");
  });

  it("makes an operator of a JWT whose claim the configuration names", async () => {
    const token = await signed({ groups: ["staff", JWT_OPERATOR_GROUP] });
    expect((await as(token).call("GET", "/v1/admin/keys?tenant=nobody")).status).toBe(200);
    expect((await as(await signed({ groups: ["staff"] })).call("GET", "/v1/admin/keys?tenant=nobody")).status).toBe(
      403,
    );
  });
});

describe("roles", () => {
  it("refuses admin endpoints to tenant callers with 403", async () => {
    for (const [method, path] of [
      ["GET", "/v1/admin/keys"],
      ["POST", "/v1/admin/registry/refresh"],
      ["PATCH", "/v1/admin/providers/lab"],
    ] as const) {
      const res = await call(method, path, method === "PATCH" ? { disabled: true } : undefined);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
  });
});

describe("http.request refuses private and special targets", () => {
  const targets = [
    "http://127.0.0.1/",
    "http://localhost:8787/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://100.64.0.1/",
    "file:///etc/passwd",
  ];
  for (const url of targets) {
    it(`refuses ${url}`, async () => {
      const res = await execute({ tool: "http.request", input: { url } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: "tool_error", details: { reason: expect.any(String) } });
    });
  }

  it("reaches the e2e stack itself only through the refusal, never the request", async () => {
    const res = await execute({ tool: "http.request", input: { url: `${baseUrl}/v1/admin/keys` } });
    expect(res.body.error.details.reason).toBe("loopback");
  });
});
