/**
 * Every authenticated request counts against its tenant's rate (src/policy/request-rate.ts):
 * dry runs, reads, lists and MCP messages too, one token each, and a JSON-RPC batch one per
 * entry. Tenants of the `capped` family have a burst of 3 and a refill no test can see
 * (test/e2e/tenants.ts), so a fresh one is refused its fourth token however slowly it comes.
 */
import { describe, expect, it } from "vitest";
import { asAdmin, bearer, call, type Answer } from "./http.ts";
import { post } from "./mcp.ts";
import { tenant } from "./tenants.ts";

async function cappedKey(): Promise<string> {
  const res = await asAdmin("POST", "/v1/admin/keys", {
    tenant: tenant("capped"),
    agent: "dev-agent",
    capabilities: ["network:*"],
    channels: ["*"],
  });
  expect(res.status).toBe(201);
  return res.body.key;
}

const dryRun = { tool: "math.evaluate", mode: "dry_run", input: { expression: "1 + 1" } };

function expectRateRefusal(r: Answer): void {
  expect(r.status).toBe(429);
  expect(r.body.error).toMatchObject({
    code: "rate_limited",
    retryable: true,
    details: { reason: "rate", limit: 0.001, retry_after_ms: expect.any(Number) },
  });
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
}

describe("the tenant's rate counts every request", () => {
  it("answers a dry-run flood from one tenant 429 beyond its rate while another tenant is served", async () => {
    const [flooder, other] = [await cappedKey(), await cappedKey()];
    // Twelve at once: at most the burst (3) is admitted. (Fewer may be: tokens an isolate's lease
    // took ahead for requests that were meanwhile refused stay unused; docs/scale.md#leases.)
    const flood = await Promise.all(
      Array.from({ length: 12 }, () => call("POST", "/v1/executions", dryRun, bearer(flooder))),
    );
    const served = flood.filter((r) => r.status === 200);
    const refused = flood.filter((r) => r.status !== 200);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(3);
    expect(served[0].body).toMatchObject({ mode: "dry_run", tool: "math.evaluate" });
    for (const r of refused) expectRateRefusal(r);
    const theirs = await call("POST", "/v1/executions", dryRun, bearer(other));
    expect(theirs.status).toBe(200);
    expect(theirs.body.mode).toBe("dry_run");
  });

  it("counts reads and lists: a flood of GETs is refused beyond the rate", async () => {
    const key = await cappedKey();
    const reads = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call("GET", i % 2 === 0 ? "/v1/executions" : "/v1/tools", undefined, bearer(key)),
      ),
    );
    const refused = reads.filter((r) => r.status !== 200);
    expect(refused.length).toBeGreaterThanOrEqual(9); // at most the burst is served
    for (const r of refused) expectRateRefusal(r);
  });

  it("charges a JSON-RPC batch one token per entry: five entries are refused whole where one message is served", async () => {
    const key = await cappedKey();
    const headers = { authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-11-25" };
    const batch = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
    const refused = await post(batch, headers);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: -32029,
      data: { error: { code: "rate_limited", details: { reason: "rate" } } },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const one = await post({ jsonrpc: "2.0", id: 9, method: "ping" }, headers);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ jsonrpc: "2.0", id: 9, result: {} });
  });

  it("refuses MCP tools/list beyond the rate with -32029 and Retry-After", async () => {
    const key = await cappedKey();
    const headers = { authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-11-25" };
    const lists = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post({ jsonrpc: "2.0", id: i + 1, method: "tools/list" }, headers)),
    );
    const refused = lists.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(7); // at most the burst is served
    for (const r of refused) {
      expect(r.body.error).toMatchObject({ code: -32029, data: { error: { code: "rate_limited" } } });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("failed credentials per client address", () => {
  /** A loopback address of its own (a local stack refuses any other), never the suite's 127.0.0.1. */
  const address = () =>
    `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;

  it("refuses an address with 429 and Retry-After once its failures pass the limit, even with a good key, while another address is served", async () => {
    const flooder = address();
    const key = await cappedKey();
    let first429 = -1;
    // AUTH_LIMITER allows 30 failures in a 10 s window (wrangler.jsonc): the flood stops at its
    // first refusal, which comes by the 91st failure however the windows fall in 30 s.
    for (let i = 0; i < 91 && first429 < 0; i++) {
      const r = await call("GET", "/v1/tools", undefined, {
        authorization: `Bearer trt_not_a_key_${i}`,
        "cf-connecting-ip": flooder,
      });
      if (r.status === 429) first429 = i;
      else expect(r.status).toBe(401);
    }
    expect(first429).toBeGreaterThanOrEqual(30);
    const refused = await call("GET", "/v1/tools", undefined, { ...bearer(key), "cf-connecting-ip": flooder });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "rate_limited", details: { reason: "auth_failures" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const elsewhere = await call("GET", "/v1/tools", undefined, { ...bearer(key), "cf-connecting-ip": address() });
    expect(elsewhere.status).toBe(200);
  });
});
