/**
 * The runtime's own upstream MCP client (src/upstreams/client.ts, docs/decisions/43-own-upstream-client.md)
 * against the example upstream under real `wrangler dev`, in both eras: the `server/discover`
 * probe, the 2025 handshake, progress and log messages on the call's stream, cancellation, and
 * errors as the classes failures.ts reads.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type UpstreamDev, startUpstreamDev } from "../../scripts/upstream-dev.ts";
import { connectUpstream, type Connection, type Progress } from "../../src/upstreams/client.ts";
import {
  JsonRpcError,
  type JsonObject,
  type JsonRpcMessage,
  paramHeaders,
  UpstreamHttpError,
} from "../../src/upstreams/mcp-wire.ts";
import type { UpstreamEra } from "../../src/upstreams/target.ts";

const TOKEN = `tok-${randomUUID()}`;
const ADMIN_SECRET = `admin-${randomUUID()}`;

let upstream: UpstreamDev;
let env: Env;
beforeAll(async () => {
  upstream = await startUpstreamDev({ UPSTREAM_TOKENS: TOKEN, ADMIN_SECRET });
  const host = new URL(upstream.origin).host;
  // The egress guard lets plain http through only to an allow-listed host:port.
  env = { UPSTREAM_EGRESS_ALLOW: host, UPSTREAM_EGRESS_PORTS: new URL(upstream.origin).port } as never;
});
afterAll(async () => {
  await upstream?.stop();
});

const legacy: UpstreamEra = { kind: "legacy" };

function connect(era?: UpstreamEra, token = TOKEN): Promise<Connection> {
  return connectUpstream(
    env,
    { url: `${upstream.origin}/mcp` },
    { authorization: `Bearer ${token}`, timeoutMs: 10_000, ...(era ? { era } : {}) },
  );
}

/** Polls a slow_count run's record until it leaves `running` (bounded: about 10 s). */
async function settledRun(runId: string): Promise<{ status: string; reached: number }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const res = await fetch(`${upstream.origin}/admin/runs/${runId}`, {
      headers: { authorization: `Bearer ${ADMIN_SECRET}` },
    });
    if (res.status === 200) {
      const record = (await res.json()) as { status: string; reached: number };
      if (record.status !== "running") return record;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} did not settle`);
}

/** slow_count's input schema as listed: it marks `run_id` to be mirrored into `Mcp-Param-Run-Id`. */
let countSchema: unknown;

async function count(c: Connection, args: JsonObject, stop?: AbortController) {
  const progress: Progress[] = [];
  const logs: JsonRpcMessage[] = [];
  const result = c.request(
    "tools/call",
    {
      name: "slow_count",
      arguments: args,
      ...(c.era.kind === "modern" ? { _meta: { "io.modelcontextprotocol/logLevel": "info" } } : {}),
    },
    {
      timeoutMs: 10_000,
      headers: c.era.kind === "modern" ? paramHeaders(countSchema, args) : {},
      ...(stop ? { signal: stop.signal } : {}),
      onProgress: (p) => {
        progress.push(p);
        if (progress.length >= 2) stop?.abort("enough");
      },
      onNotification: (n) => logs.push(n),
    },
  );
  return { result, progress, logs };
}

describe("the runtime's upstream client", () => {
  // The listing runs first (the rest need slow_count's schema); the order within is random.
  beforeAll(async () => {
    const c = await connect();
    try {
      const listed = (await c.request("tools/list", {}, { timeoutMs: 10_000 })) as {
        tools: { name: string; inputSchema: unknown }[];
      };
      countSchema = listed.tools.find((t) => t.name === "slow_count")?.inputSchema;
    } finally {
      await c.close();
    }
  });

  it("finds the modern era with server/discover and lists the tools", async () => {
    const c = await connect();
    try {
      expect(c.era).toMatchObject({ kind: "modern", discover: { supportedVersions: ["2026-07-28"] } });
      const listed = (await c.request("tools/list", {}, { timeoutMs: 10_000 })) as {
        tools: { name: string; inputSchema: unknown }[];
      };
      countSchema = listed.tools.find((t) => t.name === "slow_count")?.inputSchema;
      expect(paramHeaders(countSchema, { to: 1, run_id: "r é" })).toEqual({
        "Mcp-Param-Run-Id": "=?base64?ciDDqQ==?=",
      });
    } finally {
      await c.close();
    }
  });

  it.each([
    ["modern", undefined],
    ["2025", legacy],
  ] as const)("calls a tool in the %s era, with its progress and log messages before the result", async (_, era) => {
    const c = await connect(era);
    try {
      expect(c.era.kind).toBe(era ? "legacy" : "modern");
      const { result, progress, logs } = await count(c, { to: 3, interval_ms: 10, run_id: randomUUID() });
      expect(await result).toMatchObject({ structuredContent: { counted: 3 } });
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
      expect(progress[0]).toMatchObject({ total: 3, message: "counted 1 of 3" });
      if (!era) expect(logs).toContainEqual(expect.objectContaining({ method: "notifications/message" }));
    } finally {
      await c.close();
    }
  });

  it.each([
    ["modern", undefined],
    ["2025", legacy],
  ] as const)("cancels a call in the %s era: the upstream stops it", async (_, era) => {
    const c = await connect(era);
    const runId = randomUUID();
    const stop = new AbortController();
    try {
      // Stopped at its second progress notification.
      const { result } = await count(c, { to: 200, interval_ms: 50, run_id: runId }, stop);
      await expect(result).rejects.toThrow();
      expect(stop.signal.aborted).toBe(true);
      // Toward a 2025 server the abort is also said in words, before the connection closes.
      if (era) await Promise.all(c.flags.cancellations);
      expect(c.flags.cancellations.length).toBe(era ? 1 : 0);
      const run = await settledRun(runId);
      expect(run.status).toBe("cancelled");
      expect(run.reached).toBeLessThan(200);
    } finally {
      await c.close();
    }
  });

  it("ends in an UpstreamHttpError for a refused token and a JsonRpcError for an unknown tool", async () => {
    await expect(connect(undefined, "not-a-token")).rejects.toSatisfy(
      (e) => e instanceof UpstreamHttpError && e.status === 401,
    );
    const c = await connect();
    try {
      const call = c.request("tools/call", { name: "no_such_tool", arguments: {} }, { timeoutMs: 10_000 });
      await expect(call).rejects.toBeInstanceOf(JsonRpcError);
    } finally {
      await c.close();
    }
  });
});
