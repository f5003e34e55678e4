import { describe, expect, it } from "vitest";
import { invocationLogLine } from "../../providers/sdk/run-tool.ts";
import { usageReportsOf } from "../../src/audit/tail-reports.ts";
import { deployedInvoke, line, localInvoke, localManifest } from "../fixtures/trace-items.ts";

const edgeId = "exec_e" + "0123456789ab".padEnd(44, "f");
const objectId = "exec_" + "a".repeat(64);

describe("reading provider invocations' CPU time from tail events", () => {
  it("takes a deployed invoke's cpuTime for the execution and attempt its log line names", () => {
    expect(usageReportsOf([deployedInvoke(objectId, 2, 7, 31)])).toEqual([{ execution_id: objectId, attempt: 2, cpu_ms: 7 }]);
  });

  it("reads the line under wrangler dev's [worker] prefix, and reports no measurement for its zero times", () => {
    expect(usageReportsOf([localInvoke(edgeId, 1)])).toEqual([{ execution_id: edgeId, attempt: 1, cpu_ms: null }]);
  });

  it("keeps a measured zero: under a millisecond of CPU in an invocation that took wall time", () => {
    expect(usageReportsOf([deployedInvoke(edgeId, 1, 0, 3)])).toEqual([{ execution_id: edgeId, attempt: 1, cpu_ms: 0 }]);
  });

  it("reports an invocation the platform stopped for its CPU limit, with the CPU it used", () => {
    expect(usageReportsOf([deployedInvoke(edgeId, 1, 1001, 1050, { outcome: "exceededCpu" })])).toEqual([{ execution_id: edgeId, attempt: 1, cpu_ms: 1001 }]);
  });

  it("ignores other RPC methods and other events (manifest, fetch, alarm)", () => {
    const fetchEvent = { ...deployedInvoke(edgeId, 1, 5, 5), event: { request: { url: "https://x/", method: "GET", headers: {} } } };
    expect(usageReportsOf([localManifest(), fetchEvent, { ...deployedInvoke(edgeId, 1, 5, 5), event: null }])).toEqual([]);
  });

  it("ignores an invocation without the SDK's line, or with a line that does not name an execution attempt", () => {
    const without = { ...deployedInvoke(edgeId, 1, 5, 9), logs: [{ message: ["hello"] }] };
    const badIds = ["exec_nothex", "exec_" + "a".repeat(63), "other"].map((id) => deployedInvoke(id, 1, 5, 9));
    const badAttempts = [0, -1, 1.5, "1", null, 1001].map((n) => deployedInvoke(edgeId, n, 5, 9));
    const notJson = { ...deployedInvoke(edgeId, 1, 5, 9), logs: [{ message: [`{"msg":"trt.invocation", oops`] }] };
    expect(usageReportsOf([without, ...badIds, ...badAttempts, notJson])).toEqual([]);
  });

  it("takes the first line of an invocation, and the first report of an attempt in a batch", () => {
    const twoLines = { ...deployedInvoke(edgeId, 1, 5, 9), logs: [{ message: [line(edgeId, 1)] }, { message: [line(objectId, 1)] }] };
    expect(usageReportsOf([twoLines, deployedInvoke(edgeId, 1, 99, 100)])).toEqual([{ execution_id: edgeId, attempt: 1, cpu_ms: 5 }]);
  });

  it("reports every attempt of a batch on its own", () => {
    const reports = usageReportsOf([deployedInvoke(objectId, 1, 3, 40), deployedInvoke(objectId, 2, 4, 8), localInvoke(edgeId, 1)]);
    expect(reports).toEqual([
      { execution_id: objectId, attempt: 1, cpu_ms: 3 },
      { execution_id: objectId, attempt: 2, cpu_ms: 4 },
      { execution_id: edgeId, attempt: 1, cpu_ms: null },
    ]);
  });

  it("reports nothing it cannot read as a time", () => {
    for (const cpu of [-1, Number.NaN, undefined]) expect(usageReportsOf([{ ...deployedInvoke(edgeId, 1, 5, 9), cpuTime: cpu as number }])[0].cpu_ms).toBeNull();
  });
});

describe("the provider SDK's invocation line", () => {
  it("is what the runtime reads back from the platform's report", () => {
    const call = { execution_id: objectId, tool: "lab.echo", version: "1.0.0", input: {}, caller: { tenant: "t", agent: "a" }, context: { attempt: 9 }, remaining_timeout_ms: 1, attempt: 3 };
    const logged = JSON.stringify(invocationLogLine(call));
    const item = { ...deployedInvoke(objectId, 1, 2, 3), logs: [{ message: [logged] }] };
    expect(usageReportsOf([item])).toEqual([{ execution_id: objectId, attempt: 3, cpu_ms: 2 }]);
  });

  it("falls back to the context's attempt for a runtime that does not send one", () => {
    const call = { execution_id: edgeId, tool: "lab.echo", version: "1.0.0", input: {}, caller: { tenant: "t", agent: "a" }, context: { attempt: 2 }, remaining_timeout_ms: 1 };
    expect(invocationLogLine(call)).toEqual({ msg: "trt.invocation", execution_id: edgeId, attempt: 2 });
  });
});
