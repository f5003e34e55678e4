/**
 * docs/contract.md#audit and docs/contract.md#errors against the real stack: the audit log (Queues → D1), the execution
 * index, /metrics (parsed with a real Prometheus text parser) and trace context.
 */
import { createHash } from "node:crypto";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, asAdmin, bearer, call, ROOMY } from "./http.ts";
import { hold, newLatch, release } from "./latch.ts";
import { tenant } from "./tenants.ts";

const SECRET = `secret-${crypto.randomUUID()}`;

async function tenantKey(): Promise<{ tenant: string; key: string }> {
  const tenant = `audit-${crypto.randomUUID().slice(0, 8)}`;
  const res = await asAdmin("POST", "/v1/admin/keys", {
    tenant,
    agent: "dev-agent",
    capabilities: ["network:*"],
    channels: ["*"],
  });
  return { tenant, key: res.body.key };
}

const as =
  (key: string) =>
  (body: unknown, headers: Record<string, string> = {}) =>
    call("POST", "/v1/executions", body, { ...bearer(key), ...headers });

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

/**
 * Waits until the audit pipeline has taken in everything sent before now: a sentinel call's
 * record reaches the store after every message queued before it (one queue, delivered in
 * order), so a metric read after this is not moved later by another test's stragglers.
 * The sentinel is the tool the caller goes on to use, so its level-2 verdict (sent in the
 * background, once per agent and tool) is already in too.
 */
async function settled(t: { tenant: string; key: string }, tool: { tool: string; input: unknown }): Promise<void> {
  const sentinel = await as(t.key)({ ...tool, limits: ROOMY });
  expect(sentinel.status).toBe(200);
  await eventually(
    () => auditOf(t.tenant),
    (r) => r.some((x) => x.execution_id === sentinel.body.execution_id),
  );
  // Its level-2 verdict, asked in the background, is in the record too.
  await eventually(
    () => auditOf(t.tenant),
    (r) => r.find((x) => x.execution_id === sentinel.body.execution_id)?.capability.level2.verdict !== "pending",
  );
}

/** Sum of a metric family's samples whose labels match. */
const sum = (families: any[], name: string, match: (l: Record<string, string>) => boolean) =>
  (families.find((f) => f.name === name)?.metrics ?? [])
    .filter((m: any) => match(m.labels ?? {}))
    .reduce((s: number, m: any) => s + Number(m.value), 0);

/**
 * One histogram series (by its labels), read line by line: parse-prometheus-text-format
 * flattens a histogram family's labelled series into one, so the buckets, `_sum` and
 * `_count` of a series are taken from the text itself.
 */
function histogramSeries(
  text: string,
  family: string,
  labels: string,
): { buckets: [number, number][]; sum: number; count: number } {
  const lines = text.split("\n").filter((l) => l.includes(`{${labels}`) || l.includes(`{${labels.replace(/,$/, "")}}`));
  const value = (l: string) => Number(l.slice(l.lastIndexOf(" ") + 1));
  const buckets = lines
    .filter((l) => l.startsWith(`${family}_bucket{`))
    .map((l) => [/le="([^"]+)"/.exec(l)![1], value(l)] as const)
    .map(([le, n]) => [le === "+Inf" ? Infinity : Number(le), n] as [number, number]);
  return {
    buckets,
    sum: value(lines.find((l) => l.startsWith(`${family}_sum{`)) ?? " 0"),
    count: value(lines.find((l) => l.startsWith(`${family}_count{`)) ?? " 0"),
  };
}

/** Mixed outcomes: 3 succeed, then invalid output, a crash, a tool error and a timeout. */
async function mixed(run: ReturnType<typeof as>): Promise<any[]> {
  const latch = newLatch();
  const answers = [
    await run({
      tool: "math.evaluate",
      input: { expression: "1+1" },
      context: { correlation_id: "corr-1" },
      limits: ROOMY,
    }),
    await run({ tool: "text.stats", input: { text: SECRET }, limits: ROOMY }),
    await run({ tool: "json.query", input: { document: { k: SECRET }, path: "/k" }, limits: ROOMY }),
    await run({ tool: "lab.bad_output", input: {}, limits: ROOMY }),
    await run({ tool: "lab.crash", input: {}, limits: ROOMY }),
    await run({ tool: "http.request", input: { url: `http://127.0.0.1/${SECRET}` }, limits: ROOMY }),
    // Never released: it overruns a budget long enough to be spent running, not shed before the call.
    await run({ ...hold(latch), limits: { timeout_ms: 3_000 } }),
  ];
  await release(latch); // its handler, which the runtime stopped waiting for, ends too
  return answers;
}

describe.sequential("audit log, execution index and metrics", () => {
  it("holds exactly one record per execution, with the right fields and no parameter values", async () => {
    const { tenant, key } = await tenantKey();
    const answers = await mixed(as(key));
    const records = await eventually(
      () => auditOf(tenant),
      (r) => r.length >= answers.length,
    );
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

    // Each page says how far back the store reaches and where the archive is (docs/contract.md#archive):
    // the stack binds wrangler dev's local R2 bucket, as wrangler.jsonc does.
    const page = (await asAdmin("GET", `/v1/audit?tenant=${tenant}&limit=1`)).body;
    expect(Date.parse(page.store.oldest_record_at)).toBeLessThanOrEqual(Date.parse(first.ended_at));
    expect(page.archive).toEqual({
      enabled: true,
      binding: "AUDIT_ARCHIVE",
      prefix: `audit/${tenant}/`,
      keys: "audit/{tenant}/{yyyy}/{mm}/{dd}/{hh}/{delivery}.ndjson",
    });
  });

  it("loses and doubles nothing when the consumer fails a batch halfway", async () => {
    const t = await tenantKey();
    const stats = { tool: "text.stats", input: { text: "drill" } };
    await settled(t, stats);
    const isStats = (l: Record<string, string>) => l.tool === "text.stats";
    const before = {
      drills: (await asAdmin("GET", "/v1/admin/audit/drills")).body,
      counted: sum(await scrape(), "tool_runtime_executions_total", isStats),
    };
    expect(before.drills.fail_next_batch.armed).toBe(false);
    expect((await asAdmin("POST", "/v1/admin/audit/drill/fail-next-batch")).status).toBe(200);
    const run = as(t.key);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => run({ ...stats, input: { text: `drill ${i}` }, limits: ROOMY })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    // The drill happened: the next batch was failed after half of it was written ...
    const drills = await eventually(
      () => asAdmin("GET", "/v1/admin/audit/drills").then((r) => r.body),
      (d) => d.fail_next_batch.fired > before.drills.fail_next_batch.fired,
      30_000,
    );
    expect(drills.fail_next_batch).toMatchObject({ armed: false, fired: before.drills.fail_next_batch.fired + 1 });
    expect(drills.fail_next_batch.last_written).toBeLessThan(drills.fail_next_batch.last_batch_size);
    // ... and redelivered: every record is there once, and counted once.
    const mine = new Set(answers.map((a) => a.body.execution_id));
    const records = await eventually(
      () => auditOf(t.tenant),
      (r) => r.filter((x) => mine.has(x.execution_id)).length >= 6,
      30_000,
    );
    expect(records.filter((x) => mine.has(x.execution_id))).toHaveLength(6);
    expect(new Set(records.map((r) => r.execution_id)).size).toBe(records.length);
    const counted = await eventually(
      scrape,
      (m) => sum(m, "tool_runtime_executions_total", isStats) - before.counted >= 6,
    );
    expect(sum(counted, "tool_runtime_executions_total", isStats) - before.counted).toBe(6);
  });

  it("delivers through the durable outbox a record whose send to the queue failed", async () => {
    const t = await tenantKey();
    const math = { tool: "math.evaluate", input: { expression: "1 + 1" } };
    await settled(t, math);
    const before = (await asAdmin("GET", "/v1/admin/audit/drills")).body.fail_next_send;
    expect((await asAdmin("POST", "/v1/admin/audit/drill/fail-next-send", { count: 1 })).body).toEqual({
      armed: "fail_next_audit_send",
      count: 1,
    });
    const res = await as(t.key)({ ...math, limits: ROOMY });
    expect(res.status).toBe(200);
    // The drill happened: the send of this execution's record failed ...
    const after = (await asAdmin("GET", "/v1/admin/audit/drills")).body.fail_next_send;
    expect(after).toEqual({ armed: 0, failed: before.failed + 1 });
    // ... and the outbox delivered it anyway, once.
    const records = await eventually(
      () => auditOf(t.tenant),
      (r) => r.some((x) => x.execution_id === res.body.execution_id),
      30_000,
    );
    expect(records.filter((x) => x.execution_id === res.body.execution_id)).toHaveLength(1);
  });

  it("refuses a batch drill it cannot arm, naming the field", async () => {
    for (const [body, field] of [
      [{ count: 0 }, "count"],
      [{ count: 1.5 }, "count"],
      [{ count: 1, tenant: "" }, "tenant"],
      [{ count: 1, tenant: 7 }, "tenant"],
      [{ count: 1, tenants: ["x"] }, "tenants"],
    ] as const) {
      const res = await asAdmin("POST", "/v1/admin/audit/drill/fail-batches", body);
      expect({ body, status: res.status, code: res.body.error?.code, field: res.body.error?.details?.field }).toEqual({
        body,
        status: 400,
        code: "invalid_request",
        field,
      });
    }
  });

  it("writes what the consumer kept failing from the dead letter queue: still exactly one record, counted in /metrics", async () => {
    const deadLetters = (families: any[]) =>
      (families.find((f) => f.name === "tool_runtime_audit_dead_letters_total")?.metrics ?? [])
        .filter((m: any) => m.labels.kind === "finished" && m.labels.outcome === "written")
        .reduce((n: number, m: any) => n + Number(m.value), 0);
    const before = deadLetters(await scrape());
    const { tenant, key } = await tenantKey();
    // The queue delivers a message again 10 times (wrangler.jsonc max_retries), then dead-letters
    // it. The drill holds back this tenant's records only: a whole-batch drill would stall every
    // other file's audit records for as long as this test runs.
    const drill = await asAdmin("POST", "/v1/admin/audit/drill/fail-batches", { count: 11, tenant });
    expect(drill.body).toEqual({ armed: "fail_audit_batches", count: 11, tenant });
    const res = await as(key)({ tool: "math.evaluate", input: { expression: "4 + 4" }, limits: ROOMY });
    expect(res.status).toBe(200);
    const records = await eventually(
      () => auditOf(tenant),
      (r) => r.length >= 1,
      75_000,
    );
    expect(records.map((r) => r.execution_id)).toEqual([res.body.execution_id]);
    const after = await eventually(scrape, (m) => deadLetters(m) > before, 10_000);
    expect(deadLetters(after)).toBeGreaterThan(before);
    const marker = await as(key)({ tool: "math.evaluate", input: { expression: "5 + 5" }, limits: ROOMY });
    const both = await eventually(
      () => auditOf(tenant),
      (r) => r.some((x) => x.execution_id === marker.body.execution_id),
      60_000,
    );
    expect(both.filter((r) => r.execution_id === res.body.execution_id)).toHaveLength(1);
  }, 180_000);

  it("counts every execution once in /metrics: the counter, and the histogram's buckets, _sum and _count", async () => {
    const t = await tenantKey();
    const query = (i: number) => ({ tool: "json.query", input: { document: [i], path: "/0" } });
    await settled(t, query(0));
    const isJsonQuery = (l: Record<string, string>) => l.tool === "json.query";
    const series = 'tool="json.query",provider="std",';
    const family = "tool_runtime_execution_duration_seconds";
    const beforeText = await scrapeText();
    const N = 5;
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push((await as(t.key)({ ...query(i), limits: ROOMY })).body.execution_id);
    const records = await eventually(
      () => auditOf(t.tenant),
      (r) => ids.every((id) => r.some((x) => x.execution_id === id)),
    );
    const afterText = await scrapeText();
    const [before, after] = [parsePrometheusTextFormat(beforeText), parsePrometheusTextFormat(afterText)];
    expect(after.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(["tool_runtime_executions_total", family, "tool_runtime_breaker_state"]),
    );
    expect(after.find((f: any) => f.name === family).type).toBe("HISTOGRAM");
    expect(
      sum(after, "tool_runtime_executions_total", isJsonQuery) -
        sum(before, "tool_runtime_executions_total", isJsonQuery),
    ).toBe(N);

    const [h0, h1] = [histogramSeries(beforeText, family, series), histogramSeries(afterText, family, series)];
    // Buckets: every bound from 1 ms to 600 s, then +Inf, cumulative (never falling), +Inf equal to _count.
    expect(h1.buckets.map(([le]) => le)).toEqual([
      0.001,
      0.0025,
      0.005,
      0.01,
      0.025,
      0.05,
      0.1,
      0.25,
      0.5,
      1,
      2.5,
      5,
      10,
      30,
      60,
      120,
      300,
      600,
      Infinity,
    ]);
    for (let i = 1; i < h1.buckets.length; i++) expect(h1.buckets[i][1]).toBeGreaterThanOrEqual(h1.buckets[i - 1][1]);
    expect(h1.buckets.at(-1)![1]).toBe(h1.count);
    expect(h1.count - h0.count).toBe(N);
    // Each execution lands in exactly the buckets its latency fits under, and adds its latency to _sum.
    const latencies = records.filter((r) => ids.includes(r.execution_id)).map((r) => r.latency_ms / 1000);
    for (const [i, [le, n]] of h1.buckets.entries()) {
      const added = n - (h0.buckets[i]?.[1] ?? 0);
      expect({ le, added }).toEqual({ le, added: latencies.filter((s) => s <= le).length });
    }
    expect(h1.sum - h0.sum).toBeCloseTo(
      latencies.reduce((a, b) => a + b, 0),
      6,
    );
  });

  it("publishes no in-flight gauge (the index knows only ended executions); a running execution is in its tenant's list", async () => {
    // The gauge this replaces counted unfinished rows of the index, which never has any: it
    // was always 0. What runs now is known per tenant (its ledger), as GET /v1/executions shows.
    const { key } = await tenantKey();
    const started = await as(key)({
      tool: "lab.long",
      mode: "async",
      input: { ms: 60_000 },
      limits: { timeout_ms: 120_000 },
    });
    expect(started.status).toBe(202);
    const id = started.body.execution_id;
    try {
      const listed = await eventually(
        () => call("GET", "/v1/executions?status=running", undefined, bearer(key)),
        (r) => r.body.executions?.some((e: any) => e.execution_id === id),
      );
      expect(listed.body.executions.find((e: any) => e.execution_id === id)).toMatchObject({
        status: "running",
        tool: "lab.long",
      });
      const text = await scrapeText();
      expect(text).not.toContain("in_flight");
      expect(parsePrometheusTextFormat(text).map((f: any) => f.name)).toEqual(
        expect.arrayContaining(["tool_runtime_executions_total", "tool_runtime_breaker_state"]),
      );
    } finally {
      const cancelled = await call("POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 }, bearer(key));
      expect(cancelled.body.status).toBe("cancelled");
    }
  }, 60_000);

  it("counts rate-limit refusals in /metrics by tool and reason, and per tenant in GET /v1/audit/refusals", async () => {
    // A burst of 3 that is never refilled in time: exactly 5 of the 8 calls are refused.
    const limitedTenant = tenant("capped");
    const limited = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: limitedTenant, agent: "dev-agent", channels: ["*"] })
    ).body.key;
    const series = (m: any[]) => m.find((f) => f.name === "tool_runtime_rate_limit_refusals_total")?.metrics ?? [];
    const metricOf = (m: any[]) =>
      series(m)
        .filter((x: any) => x.labels.tool === "math.evaluate")
        .reduce((s: number, x: any) => s + Number(x.value), 0);
    const countsOf = async () => (await asAdmin("GET", `/v1/audit/refusals?tenant=${limitedTenant}`)).body;
    const before = metricOf(await scrape());
    let refused = 0;
    for (let i = 0; i < 8; i++)
      if ((await as(limited)({ tool: "math.evaluate", input: { expression: "1" }, limits: ROOMY })).status === 429)
        refused++;
    expect(refused).toBe(5);
    // The tenant's own counts: exact, since only this test's tenant is in them.
    const counts = await eventually(
      countsOf,
      (b) => b.refusals?.reduce((s: number, r: any) => s + r.count, 0) >= refused,
    );
    expect(counts.truncated).toBe(false);
    expect(counts.refusals.every((r: any) => r.tenant === limitedTenant && r.tool === "math.evaluate")).toBe(true);
    expect(counts.refusals.reduce((s: number, r: any) => s + r.count, 0)).toBe(refused);
    // The metric has no tenant label (tenants are unbounded); other tests may refuse math.evaluate too, so at least.
    const after = await scrape();
    expect(series(after).length).toBeGreaterThan(0);
    expect(series(after).every((x: any) => Object.keys(x.labels).sort().join() === "reason,tool")).toBe(true);
    expect(metricOf(after) - before).toBeGreaterThanOrEqual(refused);
    // The per-tenant answer is the operators' (another tenant's counts are not a tenant's business).
    // Asked by a tenant key with tokens to spend: this tenant's burst is gone.
    const other = await tenantKey();
    expect((await call("GET", `/v1/audit/refusals?tenant=${limitedTenant}`, undefined, bearer(other.key))).status).toBe(
      403,
    );
  });

  it("lists a tenant's executions page by page without gaps or duplicates, and never another tenant's", async () => {
    const a = await tenantKey();
    const b = await tenantKey();
    const mine: string[] = [];
    for (let i = 0; i < 7; i++)
      mine.push(
        (await as(a.key)({ tool: "math.evaluate", input: { expression: `${i}` }, limits: ROOMY })).body.execution_id,
      );
    await as(b.key)({ tool: "math.evaluate", input: { expression: "99" }, limits: ROOMY });
    const listed = async (key: string, query: string) =>
      (await call("GET", `/v1/executions${query}`, undefined, bearer(key))).body;
    await eventually(
      () => listed(a.key, "?limit=100"),
      (l) => l.executions.length >= 7,
    );
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
    const filtered = await listed(
      a.key,
      `?status=succeeded&tool=math.evaluate&since=${new Date(Date.now() - 3_600_000).toISOString()}`,
    );
    expect(filtered.executions.length).toBe(7);
    const theirs = await eventually(
      () => listed(b.key, ""),
      (l) => l.executions.length >= 1,
    );
    expect(theirs.executions.map((e: any) => e.execution_id).some((id: string) => mine.includes(id))).toBe(false);
    expect((await call("GET", "/v1/executions?limit=1000", undefined, bearer(a.key))).status).toBe(400);
  });

  it("continues the caller's trace: traceparent in, the same trace id out and in the audit record", async () => {
    const { tenant, key } = await tenantKey();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await as(key)(
      { tool: "math.evaluate", input: { expression: "2" }, limits: ROOMY },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(res.headers.get("traceparent")).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const records = await eventually(
      () => auditOf(tenant),
      (r) => r.length >= 1,
    );
    expect(records[0].trace_id).toBe(traceId);
    const fresh = await as(key)(
      { tool: "math.evaluate", input: { expression: "3" }, limits: ROOMY },
      { traceparent: "garbage" },
    );
    expect(fresh.headers.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it("hands the provider the caller's trace as ctx.traceparent", async () => {
    const { key } = await tenantKey();
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const res = await as(key)(
      { tool: "lab.context", input: {}, limits: ROOMY },
      { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    );
    expect(res.status).toBe(200);
    expect(res.body.output.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    // The same trace the answer continues.
    expect(res.body.output.traceparent.split("-")[1]).toBe(res.headers.get("traceparent")!.split("-")[1]);
  });
});
