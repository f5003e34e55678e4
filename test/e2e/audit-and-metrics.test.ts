/**
 * AIOS §5.7 and §6.3 against the real stack: the audit log (Queues → D1), the execution
 * index, /metrics (parsed with a real Prometheus text parser) and trace context.
 */
import { createHash } from "node:crypto";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, asAdmin, bearer, call } from "./http.ts";
import { tenant } from "./tenants.ts";

const SECRET = `secret-${crypto.randomUUID()}`;

async function tenantKey(): Promise<{ tenant: string; key: string }> {
  const tenant = `audit-${crypto.randomUUID().slice(0, 8)}`;
  const res = await asAdmin("POST", "/v1/admin/keys", { tenant, agent: "dev-agent", capabilities: ["network:*"], channels: ["*"] });
  return { tenant, key: res.body.key };
}

const as = (key: string) => (body: unknown, headers: Record<string, string> = {}) => call("POST", "/v1/executions", body, { ...bearer(key), ...headers });

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, withinMs = 20_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function auditOf(tenant: string): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | undefined;
  do {
    const res = await asAdmin("GET", `/v1/audit?tenant=${tenant}&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    all.push(...res.body.records);
    cursor = res.body.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

async function scrapeText(): Promise<string> {
  const res = await fetch(`${(await import("./http.ts")).baseUrl}/metrics`, { headers: bearer(ADMIN_KEY) });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

const scrape = async () => parsePrometheusTextFormat(await scrapeText());

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** A budget no call here needs: only the last call's outcome is a timeout, and it sets its own. */
const ROOMY = { timeout_ms: 20_000 };

/** Mixed outcomes: 3 succeed, then invalid output, a crash, a tool error and a timeout. */
async function mixed(run: ReturnType<typeof as>): Promise<any[]> {
  return [
    await run({ tool: "math.evaluate", input: { expression: "1+1" }, context: { correlation_id: "corr-1" }, limits: ROOMY }),
    await run({ tool: "text.stats", input: { text: SECRET }, limits: ROOMY }),
    await run({ tool: "json.query", input: { document: { k: SECRET }, path: "/k" }, limits: ROOMY }),
    await run({ tool: "lab.bad_output", input: {}, limits: ROOMY }),
    await run({ tool: "lab.crash", input: {}, limits: ROOMY }),
    await run({ tool: "http.request", input: { url: `http://127.0.0.1/${SECRET}` }, limits: ROOMY }),
    await run({ tool: "lab.stall", input: { ms: 2_000 }, limits: { timeout_ms: 200 } }),
  ];
}

describe.sequential("audit log, execution index and metrics", () => {
  it("holds exactly one record per execution, with the right fields and no parameter values", async () => {
    const { tenant, key } = await tenantKey();
    const answers = await mixed(as(key));
    const records = await eventually(() => auditOf(tenant), (r) => r.length >= answers.length);
    expect(records).toHaveLength(answers.length);
    expect(new Set(records.map((r) => r.execution_id))).toEqual(new Set(answers.map((a) => a.body.execution_id)));
    expect(JSON.stringify(records)).not.toContain(SECRET);

    const byId = new Map(records.map((r) => [r.execution_id, r]));
    const statuses = answers.map((a) => byId.get(a.body.execution_id).status);
    expect(statuses).toEqual(["succeeded", "succeeded", "succeeded", "failed", "failed", "failed", "timed_out"]);
    const codes = answers.map((a) => byId.get(a.body.execution_id).error_code);
    expect(codes).toEqual([null, null, null, "invalid_output", "provider_crashed", "tool_error", "timeout"]);

    const first = byId.get(answers[0].body.execution_id);
    expect(first).toMatchObject({
      tenant,
      agent: "dev-agent",
      tool: "math.evaluate",
      version: "1.0.0",
      provider: "std",
      mode: "sync",
      correlation_id: "corr-1",
      params_hash: sha256(JSON.stringify({ expression: "1+1" })),
      latency_ms: expect.any(Number),
      attempts: [expect.objectContaining({ provider: "std", outcome: "succeeded" })],
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    // Level 2's background verdict is in the record, not "pending".
    expect(first.capability.level2.verdict).toBe("aligned");
  });

  it("loses and doubles nothing when the consumer fails a batch halfway", async () => {
    const { tenant, key } = await tenantKey();
    expect((await asAdmin("POST", "/v1/admin/audit/drill/fail-next-batch")).status).toBe(200);
    const run = as(key);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => run({ tool: "math.evaluate", input: { expression: `${i} + 1` } })));
    const records = await eventually(() => auditOf(tenant), (r) => r.length >= 6, 30_000);
    await new Promise((r) => setTimeout(r, 1_500)); // a duplicate would arrive with the retry
    const again = await auditOf(tenant);
    expect(again).toHaveLength(6);
    expect(new Set(again.map((r) => r.execution_id))).toEqual(new Set(answers.map((a) => a.body.execution_id)));
    expect(records.length).toBe(6);
  });

  it("ends in exactly one audit record when the queue refuses the send: the durable outbox delivers it", async () => {
    const { tenant, key } = await tenantKey();
    // The next sends of the isolate serving the call fail, as a full or broken queue would make them.
    expect((await asAdmin("POST", "/v1/admin/audit/drill/fail-next-send", { count: 3 })).status).toBe(200);
    const res = await as(key)({ tool: "math.evaluate", input: { expression: "2 + 2" } });
    expect(res.status).toBe(200);
    const records = await eventually(() => auditOf(tenant), (r) => r.length >= 1, 30_000);
    expect(records.map((r) => r.execution_id)).toEqual([res.body.execution_id]);
    // A later call's record arriving after it, and still one record of the first.
    const marker = await as(key)({ tool: "math.evaluate", input: { expression: "3 + 3" } });
    const after = await eventually(() => auditOf(tenant), (r) => r.some((x) => x.execution_id === marker.body.execution_id), 30_000);
    expect(after.filter((r) => r.execution_id === res.body.execution_id)).toHaveLength(1);
    expect(after).toHaveLength(2);
  });

  it("writes what the consumer kept failing from the dead letter queue: still exactly one record, counted in /metrics", async () => {
    const deadLetters = (families: any[]) =>
      (families.find((f) => f.name === "tool_runtime_audit_dead_letters_total")?.metrics ?? [])
        .filter((m: any) => m.labels.kind === "finished" && m.labels.outcome === "written")
        .reduce((n: number, m: any) => n + Number(m.value), 0);
    const before = deadLetters(await scrape());
    const { tenant, key } = await tenantKey();
    // The queue retries a batch 10 times (wrangler.toml max_retries), then dead-letters it; a
    // few more failures absorb batches of other traffic that may come first.
    expect((await asAdmin("POST", "/v1/admin/audit/drill/fail-batches", { count: 14 })).body).toEqual({ armed: "fail_audit_batches", count: 14 });
    const res = await as(key)({ tool: "math.evaluate", input: { expression: "4 + 4" } });
    expect(res.status).toBe(200);
    const records = await eventually(() => auditOf(tenant), (r) => r.length >= 1, 75_000);
    expect(records.map((r) => r.execution_id)).toEqual([res.body.execution_id]);
    const after = await eventually(scrape, (m) => deadLetters(m) > before, 10_000);
    expect(deadLetters(after)).toBeGreaterThan(before);
    const marker = await as(key)({ tool: "math.evaluate", input: { expression: "5 + 5" } });
    const both = await eventually(() => auditOf(tenant), (r) => r.some((x) => x.execution_id === marker.body.execution_id), 60_000);
    expect(both.filter((r) => r.execution_id === res.body.execution_id)).toHaveLength(1);
  }, 180_000);

  it("counts every execution once in /metrics: counters and histogram", async () => {
    const counter = (families: any[], name: string, match: (l: Record<string, string>) => boolean) =>
      (families.find((f) => f.name === name)?.metrics ?? []).filter((m: any) => match(m.labels ?? {})).reduce((s: number, m: any) => s + Number(m.value), 0);
    // parse-prometheus-text-format flattens a histogram family's labelled series into one, so
    // each series is parsed on its own: the family's HELP/TYPE lines and that series' samples.
    const histogram = async (text: string, labels: string) => {
      const lines = text.split("\n");
      const family = lines.filter((l) => l.startsWith("# ") && l.includes(" tool_runtime_execution_duration_seconds "));
      const series = lines.filter((l) => l.startsWith("tool_runtime_execution_duration_seconds_bucket{") && l.includes(labels));
      const parsed = parsePrometheusTextFormat([...family, ...series, ""].join("\n"));
      return Number(parsed[0]?.metrics[0]?.buckets?.["+Inf"] ?? 0);
    };
    const isJsonQuery = (l: Record<string, string>) => l.tool === "json.query";
    const series = 'tool="json.query",provider="std",';
    const beforeText = await scrapeText();
    const before = parsePrometheusTextFormat(beforeText);
    const { tenant, key } = await tenantKey();
    const N = 5;
    for (let i = 0; i < N; i++) await as(key)({ tool: "json.query", input: { document: [i], path: "/0" }, limits: ROOMY });
    await eventually(() => auditOf(tenant), (r) => r.length >= N);
    const afterText = await scrapeText();
    const after = parsePrometheusTextFormat(afterText);
    expect(after.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(["tool_runtime_executions_total", "tool_runtime_execution_duration_seconds", "tool_runtime_breaker_state"]),
    );
    expect(counter(after, "tool_runtime_executions_total", isJsonQuery) - counter(before, "tool_runtime_executions_total", isJsonQuery)).toBe(N);
    expect((await histogram(afterText, series)) - (await histogram(beforeText, series))).toBe(N);
  });

  it("counts rate-limit refusals in /metrics", async () => {
    const limitedTenant = tenant("limited");
    const limited = (await asAdmin("POST", "/v1/admin/keys", { tenant: limitedTenant, agent: "dev-agent", channels: ["*"] })).body.key;
    const refusalsOf = (m: any[]) => (m.find((f) => f.name === "tool_runtime_rate_limit_refusals_total")?.metrics ?? []).filter((x: any) => x.labels.tenant === limitedTenant).reduce((s: number, x: any) => s + Number(x.value), 0);
    const before = refusalsOf(await scrape());
    let refused = 0;
    for (let i = 0; i < 8; i++) if ((await as(limited)({ tool: "math.evaluate", input: { expression: "1" } })).status === 429) refused++;
    expect(refused).toBeGreaterThan(0);
    const after = await eventually(scrape, (m) => refusalsOf(m) - before >= refused);
    expect(refusalsOf(after) - before).toBe(refused);
  });

  it("lists a tenant's executions page by page without gaps or duplicates, and never another tenant's", async () => {
    const a = await tenantKey();
    const b = await tenantKey();
    const mine: string[] = [];
    for (let i = 0; i < 7; i++) mine.push((await as(a.key)({ tool: "math.evaluate", input: { expression: `${i}` } })).body.execution_id);
    await as(b.key)({ tool: "math.evaluate", input: { expression: "99" } });
    const listed = async (key: string, query: string) => (await call("GET", `/v1/executions${query}`, undefined, bearer(key))).body;
    await eventually(() => listed(a.key, "?limit=100"), (l) => l.executions.length >= 7);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await listed(a.key, `?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.executions.map((e: any) => e.execution_id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(mine));
    const filtered = await listed(a.key, `?status=succeeded&tool=math.evaluate&since=${new Date(Date.now() - 3_600_000).toISOString()}`);
    expect(filtered.executions.length).toBe(7);
    const theirs = await eventually(() => listed(b.key, ""), (l) => l.executions.length >= 1);
    expect(theirs.executions.map((e: any) => e.execution_id).some((id: string) => mine.includes(id))).toBe(false);
    expect((await call("GET", "/v1/executions?limit=1000", undefined, bearer(a.key))).status).toBe(400);
  });

  it("continues the caller's trace: traceparent in, the same trace id out and in the audit record", async () => {
    const { tenant, key } = await tenantKey();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await as(key)({ tool: "math.evaluate", input: { expression: "2" }, limits: ROOMY }, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(res.headers.get("traceparent")).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const records = await eventually(() => auditOf(tenant), (r) => r.length >= 1);
    expect(records[0].trace_id).toBe(traceId);
    const fresh = await as(key)({ tool: "math.evaluate", input: { expression: "3" }, limits: ROOMY }, { traceparent: "garbage" });
    expect(fresh.headers.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
