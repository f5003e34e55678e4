/**
 * The example upstream MCP server (examples/upstream-mcp) under real `wrangler dev`, alone, driven
 * by the official client (@modelcontextprotocol/client) as the runtime will drive it (docs/contract.md#upstreams).
 */
import { createHash, randomUUID } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type UpstreamDev, startUpstreamDev } from "../../scripts/upstream-dev.ts";

const TOKENS = [`tok-a-${randomUUID()}`, `tok-b-${randomUUID()}`];
const ADMIN_SECRET = `admin-${randomUUID()}`;
const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

let upstream: UpstreamDev;
beforeAll(async () => {
  upstream = await startUpstreamDev({ UPSTREAM_TOKENS: TOKENS.join(","), ADMIN_SECRET });
});
afterAll(async () => {
  await upstream?.stop();
});

async function connect(options: { era?: "modern" | "legacy"; token?: string } = {}): Promise<Client> {
  const client = new Client(
    { name: "upstream-test", version: "1.0.0" },
    { versionNegotiation: { mode: options.era === "legacy" ? "legacy" : "auto" } },
  );
  const headers = { authorization: `Bearer ${options.token ?? TOKENS[0]}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${upstream.origin}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

function admin(method: string, path: string, body?: unknown, secret = ADMIN_SECRET): Promise<Response> {
  return fetch(`${upstream.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

interface RunRecord {
  status: string;
  reached: number;
  token_sha256: string | null;
}

/** Polls a slow_count run's record until it leaves `running` (bounded: about 10 s). */
async function settledRun(runId: string): Promise<RunRecord> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const res = await admin("GET", `/admin/runs/${runId}`);
    if (res.status === 200) {
      const record = (await res.json()) as RunRecord;
      if (record.status !== "running") return record;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} did not settle`);
}

const TOOLS = ["echo", "slow_count", "always_fails", "whoami", "mutable_echo"];

describe("protocol eras", () => {
  it("serves its tools to a 2026-07-28 client without a handshake, with caching hints", async () => {
    const client = await connect();
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(TOOLS);
      expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).toEqual({ ttlMs: 0, cacheScope: "public" });
    } finally {
      await client.close();
    }
  });

  it("serves the same tools to a 2025-11-25 client through the stateless lane", async () => {
    const client = await connect({ era: "legacy" });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
    } finally {
      await client.close();
    }
  });
});

describe("tools", () => {
  it("echo returns its text as structured content", async () => {
    const client = await connect();
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
      expect(result.structuredContent).toEqual({ text: "hello" });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("slow_count reports every number as progress, then its result", async () => {
    const client = await connect();
    try {
      const progress: number[] = [];
      const result = await client.callTool(
        { name: "slow_count", arguments: { to: 3, interval_ms: 10 } },
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(progress).toEqual([1, 2, 3]);
      expect(result.structuredContent).toEqual({ counted: 3 });
    } finally {
      await client.close();
    }
  });

  it("closing the request's stream cancels slow_count inside the upstream", async () => {
    const client = await connect();
    const runId = randomUUID();
    const stop = new AbortController();
    try {
      const call = client.callTool(
        { name: "slow_count", arguments: { to: 200, interval_ms: 50, run_id: runId } },
        { signal: stop.signal, onprogress: (p) => p.progress >= 2 && stop.abort("enough") },
      );
      await expect(call).rejects.toThrow();
      const run = await settledRun(runId);
      expect(run.status).toBe("cancelled");
      expect(run.reached).toBeLessThan(200);
    } finally {
      await client.close();
    }
  });

  it("always_fails answers with a tool error (isError), not a protocol error", async () => {
    const client = await connect();
    try {
      const result = await client.callTool({ name: "always_fails", arguments: {} });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: "text", text: expect.stringContaining("always_fails") }]);
    } finally {
      await client.close();
    }
  });
});

describe("credentials", () => {
  it("whoami reports the SHA-256 of the bearer token each call carried", async () => {
    const [a, b] = [await connect({ token: TOKENS[0] }), await connect({ token: TOKENS[1] })];
    try {
      expect((await a.callTool({ name: "whoami", arguments: {} })).structuredContent).toEqual({
        token_sha256: sha256(TOKENS[0]),
      });
      expect((await b.callTool({ name: "whoami", arguments: {} })).structuredContent).toEqual({
        token_sha256: sha256(TOKENS[1]),
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("refuses /mcp without a configured token: 401 with a Bearer challenge", async () => {
    for (const authorization of [undefined, "Bearer not-a-configured-token"]) {
      const res = await fetch(`${upstream.origin}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization && { authorization }) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    }
  });
});

describe("definition pinning", () => {
  it("mutable_echo's listed definition follows the admin endpoint, and resets", async () => {
    const client = await connect();
    const description = `changed ${randomUUID()}`;
    const inputSchema = { type: "object", properties: { text: { type: "string" }, secret: { type: "string" } } };
    try {
      expect((await admin("PUT", "/admin/tools/mutable_echo", { description, inputSchema })).status).toBe(200);
      const changed = (await client.listTools()).tools.find((t) => t.name === "mutable_echo");
      expect(changed).toMatchObject({ description, inputSchema });

      expect((await admin("DELETE", "/admin/tools/mutable_echo")).status).toBe(200);
      const reset = (await client.listTools()).tools.find((t) => t.name === "mutable_echo");
      expect(reset?.description).not.toBe(description);
    } finally {
      await admin("DELETE", "/admin/tools/mutable_echo");
      await client.close();
    }
  });

  it("the admin endpoint refuses a caller without the admin secret", async () => {
    const res = await admin("PUT", "/admin/tools/mutable_echo", { description: "not allowed" }, TOKENS[0]);
    expect(res.status).toBe(401);
  });
});

describe("transport", () => {
  it("answers GET and DELETE on /mcp with 405 (no sessions, no standalone stream)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${upstream.origin}/mcp`, { method, headers: { authorization: `Bearer ${TOKENS[0]}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("refuses a foreign Origin with 403 (DNS rebinding)", async () => {
    const res = await fetch(`${upstream.origin}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKENS[0]}`,
        origin: "https://evil.example",
        "content-type": "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(403);
  });
});
