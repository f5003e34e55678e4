/**
 * Test-only tenants (never in what ships): families whose limits the tests need, added to the
 * runtime's own TENANT_LIMITS for the e2e stack only (test/e2e/global-setup.ts passes them with
 * `--var`). A test names a fresh member of a family — `narrow-<uuid>` — so no two tests share
 * a tenant's buckets, slots or keys, in any order.
 */
export const TEST_TENANT_FAMILIES = {
  /** Little room: two running executions and four waiting, three open streams, small bodies and outputs (2 KiB), short timeouts and keys. */
  "narrow-*": {
    max_concurrent: 2,
    max_queued: 4,
    max_streams: 3,
    max_timeout_ms: 10_000,
    max_output_bytes: 2_048,
    max_payload_bytes: 4_096,
    idempotency_ttl_ms: 2_000,
  },
  /**
   * The narrow family's slots (two running, four waiting, three open streams) without its short
   * timeouts: for calls a test holds (lab.hold) until it releases them, however long that takes.
   */
  "slots-*": { max_concurrent: 2, max_queued: 4, max_streams: 3 },
  /** A slow rate: 1 call a second, a burst of 3. */
  "limited-*": { requests_per_second: 1, burst: 3, tool_requests_per_second: 1, tool_burst: 3 },
  /**
   * A burst of 3 and a refill no test can see (one token in about 17 minutes): the burst is all
   * there is, so how many calls pass does not depend on how fast they are sent.
   */
  "capped-*": { requests_per_second: 0.001, burst: 3, tool_requests_per_second: 0.001, tool_burst: 3 },
  /** The privilege matrix's tenants make hundreds of requests in a few seconds; every one counts against the rate. */
  "gate-read-*": { requests_per_second: 1000, burst: 2000 },
  /** Room for a load of one tool: 200 identical keyed requests at once each take a token. */
  "roomy-*": { requests_per_second: 1000, burst: 2000, tool_requests_per_second: 1000, tool_burst: 2000 },
};

/**
 * Test-only approval rules (docs/contract.md#approvals), passed as APPROVALS the same way: `approve-*` tenants
 * wait for a person before any tool with effects `delete` runs; `approve-brief-*` give that
 * person 1.5 s; `gate-read-*` wait for one before `lab.was_erased`, which any agent may call;
 * `gate-self-*` too, and let an approver decide its own call.
 */
export const TEST_APPROVALS = {
  tenants: {
    "approve-*": { effects: ["delete"], window_ms: 120_000 },
    "approve-brief-*": { effects: ["delete"], window_ms: 1_500 },
    /** A read-only tool waits for a person too, so any agent's call can (test/e2e/privilege-matrix.test.ts). */
    "gate-read-*": { tools: ["lab.was_erased"], window_ms: 300_000 },
    /** The same, where an approver may decide its own call. */
    "gate-self-*": { tools: ["lab.was_erased"], window_ms: 300_000, self_approval: true },
  },
};

/** A fresh tenant of a family, e.g. `tenant("narrow")` → `narrow-3f9c…`. */
export const tenant = (
  family: "narrow" | "slots" | "limited" | "capped" | "roomy" | "approve" | "approve-brief" | "gate-read" | "gate-self",
) => `${family}-${crypto.randomUUID()}`;
