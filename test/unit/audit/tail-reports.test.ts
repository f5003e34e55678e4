import { beforeAll, describe, expect, it } from "vitest";
import { invocationLogLine } from "../../../providers/sdk/run-tool.ts";
import { importReportKey, nonceFor, tenantHashOf } from "../../../src/audit/report-nonce.ts";
import {
  invocationReports,
  usageReportsOf,
  type InvocationReport,
  type TraceItemLike,
} from "../../../src/audit/tail-reports.ts";
import { deployedInvoke, line, localInvoke, localManifest } from "../../fixtures/trace-items.ts";

const edgeId = "exec_e" + "0123456789ab".padEnd(44, "f");
const objectId = "exec_" + "a".repeat(64);

/** The deployment's key, as the registry would hold it, and a second one nobody uses. */
let key: CryptoKey;
let otherKey: CryptoKey;
beforeAll(async () => {
  key = await importReportKey("0f".repeat(32));
  otherKey = await importReportKey("e1".repeat(32));
});
const nonce = (id: string, attempt: number) => nonceFor(key, id, attempt);

/** The reports the tail handler believes, with nonces computed as src/audit/tail.ts does. */
async function believed(items: readonly TraceItemLike[]) {
  const candidates = invocationReports(items);
  const expected = new Map<InvocationReport, string>();
  for (const c of candidates) expected.set(c, await nonceFor(key, c.execution_id, c.attempt, tenantHashOf(c.nonce)));
  return usageReportsOf(candidates, (r) => expected.get(r));
}

describe("reading provider invocations' CPU time from tail events", () => {
  it("takes a deployed invoke's cpuTime for the execution and attempt its log line names", async () => {
    expect(await believed([deployedInvoke(objectId, 2, 7, 31, {}, await nonce(objectId, 2))])).toEqual([
      { execution_id: objectId, attempt: 2, cpu_ms: 7 },
    ]);
  });

  it("reads the line under wrangler dev's [worker] prefix, and reports no measurement for its zero times", async () => {
    expect(await believed([localInvoke(edgeId, 1, await nonce(edgeId, 1))])).toEqual([
      { execution_id: edgeId, attempt: 1, cpu_ms: null },
    ]);
  });

  it("keeps a measured zero: under a millisecond of CPU in an invocation that took wall time", async () => {
    expect(await believed([deployedInvoke(edgeId, 1, 0, 3, {}, await nonce(edgeId, 1))])).toEqual([
      { execution_id: edgeId, attempt: 1, cpu_ms: 0 },
    ]);
  });

  it("reports an invocation the platform stopped for its CPU limit, with the CPU it used", async () => {
    expect(
      await believed([deployedInvoke(edgeId, 1, 1001, 1050, { outcome: "exceededCpu" }, await nonce(edgeId, 1))]),
    ).toEqual([{ execution_id: edgeId, attempt: 1, cpu_ms: 1001 }]);
  });

  it("ignores other RPC methods and other events (manifest, fetch, alarm)", async () => {
    const n = await nonce(edgeId, 1);
    const fetchEvent = {
      ...deployedInvoke(edgeId, 1, 5, 5, {}, n),
      event: { request: { url: "https://x/", method: "GET", headers: {} } },
    };
    expect(
      await believed([localManifest(), fetchEvent, { ...deployedInvoke(edgeId, 1, 5, 5, {}, n), event: null }]),
    ).toEqual([]);
  });

  it("ignores an invocation without the SDK's line, or with a line that does not name an execution attempt", async () => {
    const without = { ...deployedInvoke(edgeId, 1, 5, 9), logs: [{ message: ["hello"] }] };
    const badIds = ["exec_nothex", "exec_" + "a".repeat(63), "other"].map((id) => deployedInvoke(id, 1, 5, 9));
    const badAttempts = [0, -1, 1.5, "1", null, 1001].map((n) => deployedInvoke(edgeId, n, 5, 9));
    const notJson = { ...deployedInvoke(edgeId, 1, 5, 9), logs: [{ message: [`{"msg":"trt.invocation", oops`] }] };
    expect(invocationReports([without, ...badIds, ...badAttempts, notJson])).toEqual([]);
  });

  it("takes the first line of an invocation, and the first believed report of an attempt in a batch", async () => {
    const twoLines = {
      ...deployedInvoke(edgeId, 1, 5, 9),
      logs: [
        { message: [line(edgeId, 1, await nonce(edgeId, 1))] },
        { message: [line(objectId, 1, await nonce(objectId, 1))] },
      ],
    };
    expect(await believed([twoLines, deployedInvoke(edgeId, 1, 99, 100, {}, await nonce(edgeId, 1))])).toEqual([
      { execution_id: edgeId, attempt: 1, cpu_ms: 5 },
    ]);
  });

  it("reports every attempt of a batch on its own", async () => {
    const reports = await believed([
      deployedInvoke(objectId, 1, 3, 40, {}, await nonce(objectId, 1)),
      deployedInvoke(objectId, 2, 4, 8, {}, await nonce(objectId, 2)),
      localInvoke(edgeId, 1, await nonce(edgeId, 1)),
    ]);
    expect(reports).toEqual([
      { execution_id: objectId, attempt: 1, cpu_ms: 3 },
      { execution_id: objectId, attempt: 2, cpu_ms: 4 },
      { execution_id: edgeId, attempt: 1, cpu_ms: null },
    ]);
  });

  it("reports nothing it cannot read as a time", async () => {
    for (const cpu of [-1, Number.NaN, undefined])
      expect(
        (
          await believed([{ ...deployedInvoke(edgeId, 1, 5, 9, {}, await nonce(edgeId, 1)), cpuTime: cpu as number }])
        )[0].cpu_ms,
      ).toBeNull();
  });
});

describe("a report is believed only for an attempt the runtime dispatched", () => {
  it("refuses a line without a nonce, or with one that is not 32 hex digits", async () => {
    const malformed = [
      "",
      "x".repeat(32),
      (await nonce(edgeId, 1)).toUpperCase(),
      (await nonce(edgeId, 1)).slice(0, 31),
    ];
    expect(
      await believed([
        deployedInvoke(edgeId, 1, 5, 9),
        ...malformed.map((n) => deployedInvoke(edgeId, 1, 5, 9, {}, n)),
      ]),
    ).toEqual([]);
  });

  it("refuses a line naming another execution or attempt with the nonce its own call carried", async () => {
    // A provider sent attempt 1 of objectId tries to put its CPU time on edgeId, and on attempt 2.
    const own = await nonce(objectId, 1);
    expect(
      await believed([deployedInvoke(edgeId, 1, 500, 600, {}, own), deployedInvoke(objectId, 2, 500, 600, {}, own)]),
    ).toEqual([]);
    expect(await believed([deployedInvoke(objectId, 1, 5, 9, {}, own)])).toEqual([
      { execution_id: objectId, attempt: 1, cpu_ms: 5 },
    ]);
  });

  it("refuses a nonce made with another key", async () => {
    expect(await believed([deployedInvoke(edgeId, 1, 5, 9, {}, await nonceFor(otherKey, edgeId, 1))])).toEqual([]);
  });

  it("lets no forged line crowd out the real report of the same attempt in a batch", async () => {
    const forged = deployedInvoke(edgeId, 1, 900, 950, {}, "0".repeat(32));
    const real = deployedInvoke(edgeId, 1, 4, 9, {}, await nonce(edgeId, 1));
    expect(await believed([forged, real])).toEqual([{ execution_id: edgeId, attempt: 1, cpu_ms: 4 }]);
  });

  it("carries the tenant's hash, which names the record's audit shard, and refuses it altered", async () => {
    const hash = "0badf00d";
    const withHash = await nonceFor(key, edgeId, 1, hash);
    expect(withHash).toMatch(/^[0-9a-f]{32}-0badf00d$/);
    expect(withHash.slice(0, 32)).not.toBe(await nonce(edgeId, 1));
    expect(await believed([deployedInvoke(edgeId, 1, 5, 9, {}, withHash)])).toEqual([
      { execution_id: edgeId, attempt: 1, cpu_ms: 5, tenant_hash: hash },
    ]);
    // A provider that changes the hash (to send its report to another shard) is not believed.
    expect(await believed([deployedInvoke(edgeId, 1, 5, 9, {}, `${withHash.slice(0, 33)}00000000`)])).toEqual([]);
    // An older nonce, without a hash, is believed as before, its shard unknown.
    expect(await believed([deployedInvoke(edgeId, 1, 5, 9, {}, await nonce(edgeId, 1))])).toEqual([
      { execution_id: edgeId, attempt: 1, cpu_ms: 5 },
    ]);
  });

  it("makes a nonce per execution and attempt, the same in every isolate with the same key", async () => {
    const a = await nonce(edgeId, 1);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(await nonceFor(await importReportKey("0f".repeat(32)), edgeId, 1)).toBe(a);
    expect(
      new Set([a, await nonce(edgeId, 2), await nonce(objectId, 1), await nonceFor(otherKey, edgeId, 1)]).size,
    ).toBe(4);
  });
});

describe("the provider SDK's invocation line", () => {
  it("is what the runtime reads back from the platform's report, nonce and all", async () => {
    const report_nonce = await nonce(objectId, 3);
    const call = {
      execution_id: objectId,
      tool: "lab.echo",
      version: "1.0.0",
      input: {},
      caller: { tenant: "t", agent: "a" },
      context: { attempt: 9 },
      remaining_timeout_ms: 1,
      attempt: 3,
      report_nonce,
    };
    const logged = JSON.stringify(invocationLogLine(call));
    const item = { ...deployedInvoke(objectId, 1, 2, 3), logs: [{ message: [logged] }] };
    expect(await believed([item])).toEqual([{ execution_id: objectId, attempt: 3, cpu_ms: 2 }]);
  });

  it("falls back to the context's attempt for a runtime that does not send one, and logs no nonce it was not sent", () => {
    const call = {
      execution_id: edgeId,
      tool: "lab.echo",
      version: "1.0.0",
      input: {},
      caller: { tenant: "t", agent: "a" },
      context: { attempt: 2 },
      remaining_timeout_ms: 1,
    };
    expect(invocationLogLine(call)).toEqual({ msg: "trt.invocation", execution_id: edgeId, attempt: 2 });
  });
});
