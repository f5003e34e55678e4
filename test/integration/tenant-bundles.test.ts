/**
 * A tenant's own tool bundles in workerd (docs/contract.md#bundles): its admins keep them at
 * `/v1/bundles`, `/mcp/{bundle}` resolves the caller's tenant's bundle first and the operators'
 * second, and another tenant's bundles are never seen — not over MCP, not through the API,
 * not as a key's bundles.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLE_LIMITS } from "../../src/registry/bundles.ts";
import { authorize, exchange, mcp } from "./oauth-client.ts";
import { http, legacy, MCP_HEADERS, MODERN, type Answer } from "./mcp-http.ts";
import { mintKey } from "./worker-http.ts";

const ADMIN = env.DEV_ADMIN_KEY;

/** What this file made, deleted at the end whatever happened: [tenant or null for the operators', name]. */
const made: [string | null, string][] = [];
afterAll(async () => {
  for (const [tenant, name] of made)
    await http("DELETE", tenant ? `/v1/bundles/${name}?tenant=${tenant}` : `/v1/admin/bundles/${name}`, ADMIN);
});

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** A tenant with an admin's key and an agent's key (every channel). */
async function tenant(prefix: string) {
  const name = unique(prefix);
  return { name, admin: await mintKey(env, name, { role: "tenant_admin" }), agent: await mintKey(env, name) };
}

function putOwn(t: { name: string; admin: string }, bundle: string, body: Record<string, unknown>) {
  made.push([t.name, bundle]);
  return http("PUT", `/v1/bundles/${bundle}`, t.admin, body);
}

function listTools(path: string, key: string) {
  return http(
    "POST",
    path,
    key,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
    { ...MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  );
}

const names = (answer: Answer) => (answer.body.result.tools as { name: string }[]).map((t) => t.name).sort();

describe("a tenant admin's bundles", () => {
  it("are created, shown, listed, replaced and deleted by the tenant's admin", async () => {
    const t = await tenant("tb-crud");
    const name = unique("own");
    const created = await putOwn(t, name, { description: "maths", tools: ["math.evaluate"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, description: "maths", tools: ["math.evaluate"], discovery: "list" });
    expect((await http("GET", `/v1/bundles/${name}`, t.admin)).body).toEqual(created.body);
    expect((await http("GET", "/v1/bundles", t.admin)).body.bundles.map((b: { name: string }) => b.name)).toEqual([
      name,
    ]);
    // Operators see it with ?tenant=; it is not one of the operators' own.
    expect((await http("GET", `/v1/bundles/${name}?tenant=${t.name}`, ADMIN)).body).toEqual(created.body);
    expect((await http("GET", `/v1/admin/bundles/${name}`, ADMIN)).status).toBe(404);

    const replaced = await putOwn(t, name, { prefixes: ["text."] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name, description: null, tools: [], prefixes: ["text."] });
    const tagged = await putOwn(t, name, { tags: ["text"] });
    expect(tagged.body).toMatchObject({ name, prefixes: [], tags: ["text"] });
    expect(names(await listTools(`/mcp/${name}`, t.agent))).toEqual(["text.stats"]);
    const bad = await putOwn(t, name, { tools: ["math.evaluate"], tags: ["Text"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", details: { field: "tags" } });

    expect(await http("DELETE", `/v1/bundles/${name}`, t.admin)).toMatchObject({
      status: 200,
      body: { name, deleted: true },
    });
    expect((await http("GET", `/v1/bundles/${name}`, t.admin)).status).toBe(404);
    expect((await http("DELETE", `/v1/bundles/${name}`, t.admin)).status).toBe(404);
  });

  it("refuses a plain agent key with 403, and a tenant admin another tenant's ?tenant= with 403", async () => {
    const t = await tenant("tb-agent");
    const other = await tenant("tb-agent-other");
    for (const [key, method, path] of [
      [t.agent, "PUT", `/v1/bundles/${unique("nope")}`],
      [t.agent, "GET", "/v1/bundles"],
      [t.admin, "GET", `/v1/bundles?tenant=${other.name}`],
      [t.admin, "PUT", `/v1/bundles/${unique("nope")}?tenant=${other.name}`],
    ] as const) {
      const res = await http(method, path, key, method === "PUT" ? { tools: ["math.evaluate"] } : undefined);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    expect((await http("GET", "/v1/bundles", t.admin)).body.bundles).toEqual([]);
  });

  it("serve /mcp/{name} to the tenant only, on both eras; another tenant meets an unknown bundle everywhere", async () => {
    const t = await tenant("tb-mcp");
    const other = await tenant("tb-mcp-other");
    const name = unique("own");
    expect((await putOwn(t, name, { tools: ["math.evaluate"], prefixes: ["text."] })).status).toBe(201);
    const all = names(await listTools("/mcp", t.agent));
    const expected = all.filter((n) => n === "math.evaluate" || n.startsWith("text."));
    expect(expected).toContain("math.evaluate");
    expect(all.length).toBeGreaterThan(expected.length);
    for (const answer of [
      await listTools(`/mcp/${name}`, t.agent),
      await legacy(`/mcp/${name}`, t.agent, "tools/list"),
    ]) {
      expect(answer.status).toBe(200);
      expect(names(answer)).toEqual(expected);
    }

    const elsewhere = await listTools(`/mcp/${name}`, other.agent);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.data.error).toMatchObject({ code: "not_found", details: { bundle: name } });
    expect((await http("GET", `/v1/bundles/${name}`, other.admin)).status).toBe(404);
    expect((await http("DELETE", `/v1/bundles/${name}`, other.admin)).status).toBe(404);
    expect((await http("GET", "/v1/bundles", other.admin)).body.bundles).toEqual([]);
    // Still there for its own tenant.
    expect((await listTools(`/mcp/${name}`, t.agent)).status).toBe(200);
  });

  it("shadow an operators' bundle of the same name for that tenant only, until deleted", async () => {
    const t = await tenant("tb-shadow");
    const other = await tenant("tb-shadow-other");
    const name = unique("shared");
    made.push([null, name]);
    expect((await http("PUT", `/v1/admin/bundles/${name}`, ADMIN, { tools: ["math.evaluate"] })).status).toBe(201);
    expect((await putOwn(t, name, { tools: ["json.query"] })).status).toBe(201);

    expect(names(await listTools(`/mcp/${name}`, t.agent))).toEqual(["json.query"]);
    expect(names(await listTools(`/mcp/${name}`, other.agent))).toEqual(["math.evaluate"]);
    expect((await http("DELETE", `/v1/bundles/${name}`, t.admin)).status).toBe(200);
    expect(names(await listTools(`/mcp/${name}`, t.agent))).toEqual(["math.evaluate"]);
  });

  it(`are at most ${BUNDLE_LIMITS.tenant_bundles} a tenant: one more is invalid_request, a replacement is not`, async () => {
    const t = await tenant("tb-bound");
    const base = unique("n");
    for (let i = 0; i < BUNDLE_LIMITS.tenant_bundles; i++)
      expect((await putOwn(t, `${base}-${i}`, { tools: ["math.evaluate"] })).status).toBe(201);
    const over = await putOwn(t, `${base}-over`, { tools: ["math.evaluate"] });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: "invalid_request", details: { field: "name" } });
    expect(over.body.error.message).toContain(`${BUNDLE_LIMITS.tenant_bundles} bundles`);
    expect((await putOwn(t, `${base}-0`, { tools: ["json.query"] })).status).toBe(200);
    // Another tenant's count is its own.
    const other = await tenant("tb-bound-other");
    expect((await putOwn(other, `${base}-over`, { tools: ["math.evaluate"] })).status).toBe(201);
  });
});

describe("a key limited to a tenant's bundle", () => {
  it("is made for the tenant only, and sees only the bundle's tools", async () => {
    const t = await tenant("tb-key");
    const other = await tenant("tb-key-other");
    const name = unique("own");
    expect((await putOwn(t, name, { tools: ["math.evaluate"] })).status).toBe(201);

    const minted = await http("POST", "/v1/admin/keys", t.admin, {
      tenant: t.name,
      agent: "limited",
      channels: ["*"],
      bundles: [name],
    });
    expect(minted.status).toBe(201);
    expect(names(await listTools("/mcp", minted.body.key))).toEqual(["math.evaluate"]);
    expect(names(await listTools(`/mcp/${name}`, minted.body.key))).toEqual(["math.evaluate"]);

    const foreign = await http("POST", "/v1/admin/keys", other.admin, {
      tenant: other.name,
      agent: "limited",
      channels: ["*"],
      bundles: [name],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: "invalid_request", details: { field: "bundles" } });
  });
});

describe("an OAuth grant limited to a tenant's bundle", () => {
  it("is offered to the tenant's people and serves only the bundle's tools", async () => {
    const t = await tenant("tb-oauth");
    const name = unique("own");
    expect((await putOwn(t, name, { prefixes: ["text."] })).status).toBe(201);
    const signed = await authorize(t.agent, { grant: "bundle", bundle: name });
    const access = (await exchange(signed)).body.access_token as string;
    const listed = (await mcp(access, "tools/list")).body.result.tools.map((x: { name: string }) => x.name);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((n: string) => !n.startsWith("text."))).toEqual([]);
  });
});
