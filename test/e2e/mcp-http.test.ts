/**
 * /mcp at the HTTP level: the resource server (401 and its RFC 9728 challenge, the metadata,
 * JWT audiences, 403), DNS-rebinding protection, and what malformed or misdirected requests
 * answer — each with the protocol's code and HTTP status, and nothing run.
 */
import { request as httpRequest } from "node:http";
import { importJWK, SignJWT, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, baseUrl, bearer, call, DEV_KEY } from "./http.ts";
import { expectNothingRan, MCP_URL, MODERN, modern, newKey, post } from "./mcp.ts";
import { provided } from "./stack.ts";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const listTools = (id = 1) => ({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: ENVELOPE } });
/** With a budget the call does not need in full (math.evaluate's own 100 ms is shorter than a busy machine's overhead). */
const mathCall = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    name: "math.evaluate",
    arguments: { expression: "1 + 1" },
    _meta: { ...ENVELOPE, "io.tool-runtime/limits": { timeout_ms: 20_000 } },
  },
});
const modernHeaders = (key: string, method: string, name?: string) => ({
  ...bearer(key),
  "mcp-protocol-version": MODERN,
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

/** This run's own tenant for the JWT callers (another run's stack, or a later file, never shares it). */
const JWT_TENANT = `jwt-mcp-${crypto.randomUUID()}`;

async function jwt(audience: string): Promise<string> {
  const key = await importJWK(provided("jwtPrivateKey") as JWK, "ES256");
  return new SignJWT({ tenant: JWT_TENANT, capabilities: [], channels: ["*"] })
    .setProtectedHeader({ alg: "ES256", kid: "e2e-1" })
    .setSubject("jwt-agent")
    .setIssuer(provided("jwtIssuer"))
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(key);
}

describe("/mcp as a protected resource", () => {
  it("refuses a request without a valid credential with 401 and the RFC 9728 challenge", async () => {
    for (const authorization of [undefined, "Bearer trt_no_such_key_0000000000000000", "Basic dXNlcjpwYXNz"]) {
      const res = await post(listTools(), {
        ...(authorization ? { authorization } : {}),
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/list",
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(res.body.error.data.error).toMatchObject({ code: "unauthenticated" });
    }
  });

  it("serves the metadata the challenge names: this resource, and the runtime and the JWT issuer as its authorization servers", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await call("GET", path, undefined, { authorization: "" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        resource: MCP_URL,
        authorization_servers: [new URL(baseUrl).origin, provided("jwtIssuer")],
        bearer_methods_supported: ["header"],
        resource_name: "Tool Runtime MCP",
      });
    }
  });

  it("accepts a JWT whose audience is this resource and refuses one issued for another", async () => {
    const ok = await post(listTools(), {
      ...bearer(await jwt(provided("jwtAudience"))),
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/list",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.tools.map((t: { name: string }) => t.name)).toContain("math.evaluate");
    const other = await post(listTools(), {
      ...bearer(await jwt("https://another-resource.example/mcp")),
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/list",
    });
    expect(other.status).toBe(401);
    expect(other.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("answers a call the credential lacks the capability for with 403 insufficient_scope, the JSON-RPC error in the body, and runs nothing", async () => {
    // The order assistant may send (level 2 passes) but holds only api.example.com (level 3 refuses).
    const key = await newKey({ agent: "order-assistant", capabilities: ["network:api.example.com"] });
    const res = await modern(
      "tools/call",
      { name: "http.request", arguments: { url: "https://example.com/" } },
      { key },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toMatch(
      /^Bearer error="insufficient_scope", scope="network:example.com", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(res.body.error).toMatchObject({
      code: -32003,
      data: { error: { code: "forbidden", details: { level: 3, required: "network:example.com" } } },
    });
    // A misaligned call (level 2) is a 403 too, without a scope to ask for.
    const reader = await newKey({ agent: "research-assistant", capabilities: ["network:*"] });
    const misaligned = await modern(
      "tools/call",
      { name: "http.request", arguments: { url: "https://example.com/" } },
      { key: reader },
    );
    expect(misaligned.status).toBe(403);
    expect(misaligned.headers.get("www-authenticate")).toBeNull();
    expect(misaligned.body.error).toMatchObject({
      code: -32003,
      data: { error: { code: "forbidden", details: { level: 2 } } },
    });
    await expectNothingRan(key);
  });
});

/**
 * A request as a DNS-rebinding page makes it: to the stack's loopback address, with the page's
 * own Host (fetch cannot set Host, so node:http).
 */
function rebound(path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: any }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: body === undefined ? "GET" : "POST", headers },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

describe("DNS-rebinding protection", () => {
  it("refuses, on every route, a request whose Host is not loopback, before the well-known keys count", async () => {
    const port = new URL(baseUrl).port;
    const refused = { status: 403, body: { error: { code: "forbidden", details: { reason: "local_only" } } } };
    expect(await rebound("/v1/tools", { host: `rebind.attacker.example:${port}`, ...bearer(DEV_KEY) })).toMatchObject(
      refused,
    );
    expect(await rebound("/v1/admin/keys", { host: "attacker.example", ...bearer(ADMIN_KEY) })).toMatchObject(refused);
    expect(await rebound("/metrics", { host: "192.168.1.20", ...bearer(ADMIN_KEY) })).toMatchObject(refused);
    const mcp = await rebound(
      "/mcp",
      {
        host: "attacker.example",
        ...modernHeaders(DEV_KEY, "tools/list"),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      JSON.stringify(listTools()),
    );
    expect(mcp).toMatchObject({
      status: 403,
      body: { error: { code: -32000, data: { error: { code: "forbidden", details: { reason: "local_only" } } } } },
    });
    // The same request with the stack's own Host is answered: the Host is what was refused.
    expect((await rebound("/v1/tools", { host: `localhost:${port}`, ...bearer(DEV_KEY) })).status).toBe(200);
  });

  it("refuses a page from another origin on /v1 too", async () => {
    const evil = await rebound("/v1/tools", {
      host: new URL(baseUrl).host,
      origin: "http://attacker.example",
      ...bearer(DEV_KEY),
    });
    expect(evil).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden", details: { reason: "local_only" } } },
    });
  });

  it("refuses a page from another origin with 403 before anything else; localhost pages pass", async () => {
    const key = await newKey();
    const evil = await post(mathCall(), {
      ...modernHeaders(key, "tools/call", "math.evaluate"),
      origin: "http://attacker.example",
    });
    expect(evil.status).toBe(403);
    expect(evil.body.error.code).toBe(-32000);
    const local = await post(mathCall(), {
      ...modernHeaders(key, "tools/call", "math.evaluate"),
      origin: "http://localhost:6274",
    });
    expect(local.status).toBe(200);
    expect(local.body.result.structuredContent).toEqual({ value: 2 });
    // Only the localhost page's call ran.
    await expectNothingRan(key, [local.body.result._meta["io.tool-runtime/execution_id"]]);
  });
});

describe("faults", () => {
  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await fetch(MCP_URL, { method, headers: { ...bearer(await newKey()), accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
    }
  });

  it("gives malformed or misdirected requests the protocol's code and status, and runs nothing", async () => {
    const key = await newKey();
    const h = (method: string, name?: string) => modernHeaders(key, method, name);
    const cases: [string, Promise<Awaited<ReturnType<typeof post>>>, number, number][] = [
      ["not JSON", post(undefined, h("tools/call", "math.evaluate"), { raw: "{not json" }), 400, -32700],
      ["a batch with a 2026 request", post([mathCall(1), mathCall(2)], h("tools/call", "math.evaluate")), 400, -32600],
      [
        "an unknown method",
        post({ jsonrpc: "2.0", id: 1, method: "tools/explode", params: { _meta: ENVELOPE } }, h("tools/explode")),
        404,
        -32601,
      ],
      [
        "a removed method (ping)",
        post({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: ENVELOPE } }, h("ping")),
        404,
        -32601,
      ],
      [
        "an unsupported protocol version",
        post(
          {
            ...mathCall(),
            params: {
              ...mathCall().params,
              _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
            },
          },
          { ...h("tools/call", "math.evaluate"), "mcp-protocol-version": "2099-01-01" },
        ),
        400,
        -32022,
      ],
      ["no Mcp-Method header", post(mathCall(), { ...bearer(key), "mcp-protocol-version": MODERN }), 400, -32020],
      ["an Mcp-Name that is not the tool", post(mathCall(), h("tools/call", "text.stats")), 400, -32020],
      [
        "no envelope in _meta",
        post(
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "math.evaluate", arguments: {} } },
          h("tools/call", "math.evaluate"),
        ),
        400,
        -32602,
      ],
      [
        "a body over MAX_REQUEST_BYTES",
        post(undefined, h("tools/call", "math.evaluate"), {
          raw: JSON.stringify({ ...mathCall(), pad: "x".repeat(1_100_000) }),
        }),
        413,
        -32000,
      ],
      [
        "a body that is not JSON by its type",
        post(mathCall(), h("tools/call", "math.evaluate"), { contentType: "text/plain" }),
        415,
        -32000,
      ],
    ];
    for (const [what, answer, status, code] of cases) {
      const res = await answer;
      expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status, code });
    }
    await expectNothingRan(key);
  });

  it("answers server/discover with the served revision, the tools and the tasks extension", async () => {
    const res = await modern("server/discover");
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "tool-runtime" } },
    });
    expect(res.body.result.capabilities.tasks).toBeUndefined();
  });

  it("serves 2025-06-18 and 2025-11-25 clients with the initialize handshake on the same path", async () => {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await post(
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
        },
        bearer(await newKey()),
      );
      expect(res.status).toBe(200);
      expect(res.body.result.protocolVersion).toBe(version);
      expect(res.headers.get("mcp-session-id")).toMatch(/^[0-9a-f]{32}$/);
    }
  });
});
