/**
 * The MCP face with the official client (`@modelcontextprotocol/client`), on protocol
 * 2026-07-28 and on 2025-11-25: the same tools, the same execution service, the same results.
 */
import { ProtocolError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { asAdmin, bearer, call } from "./http.ts";
import { connect, expectNothingRan, legacySession, MCP_URL, modern, newKey, until } from "./mcp.ts";
import { tenant } from "./tenants.ts";

const EXECUTION_ID = "io.tool-runtime/execution_id";
/** A budget the call does not need in full (math.evaluate's own is 100 ms: shorter than a busy machine's overhead). */
const ROOMY_META = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };

/** The tenant's executions (the index plus the live ones), as REST lists them. */
async function executionsOf(key: string, tool: string): Promise<any[]> {
  const res = await call("GET", `/v1/executions?tool=${tool}`, undefined, bearer(key));
  expect(res.status).toBe(200);
  return res.body.executions;
}

async function refusal(promise: Promise<unknown>): Promise<ProtocolError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}

describe.each(["modern", "legacy"] as const)("the official client on %s", (era) => {
  it("lists every tool the caller can call, by name, described from its manifest", async () => {
    const { client } = await connect(era);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(expect.arrayContaining(["demo.countdown", "http.request", "math.evaluate"]));

      const math = tools.find((t) => t.name === "math.evaluate")!;
      const rest = await call("GET", "/v1/tools/math.evaluate");
      const offering = rest.body.versions[0].providers[0];
      expect(math).toMatchObject({
        title: "Math evaluate",
        description: rest.body.description,
        inputSchema: offering.input_schema,
        outputSchema: offering.output_schema,
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        _meta: {
          "io.tool-runtime/version": "1.0.0",
          "io.tool-runtime/versions": ["1.0.0"],
          "io.tool-runtime/tags": ["maths"],
        },
      });
      // Every tool's tags are the ones GET /v1/tools shows this caller.
      const listed = (await call("GET", "/v1/tools")).body.tools as { name: string; tags: string[] }[];
      for (const tool of tools)
        expect([tool.name, tool._meta?.["io.tool-runtime/tags"]]).toEqual([
          tool.name,
          listed.find((t) => t.name === tool.name)!.tags,
        ]);
      // http.request reaches the network (a `network:` capability) and sends.
      expect(tools.find((t) => t.name === "http.request")!.annotations).toMatchObject({
        readOnlyHint: false,
        openWorldHint: true,
        idempotentHint: false,
      });
      // 2025-11-25 tools say whether a task may run them; 2026-07-28 has no such field.
      const countdown = tools.find((t) => t.name === "demo.countdown") as { execution?: unknown };
      if (era === "legacy") {
        expect((math as { execution?: unknown }).execution).toEqual({ taskSupport: "forbidden" });
        expect(countdown.execution).toEqual({ taskSupport: "optional" });
      } else {
        expect(countdown.execution).toBeUndefined();
      }
    } finally {
      await client.close();
    }
  });

  it("leaves out tools the caller's capabilities can never reach", async () => {
    const { client } = await connect(era, await newKey({ capabilities: [] }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("math.evaluate");
      expect(names).not.toContain("http.request");
    } finally {
      await client.close();
    }
  });

  it("runs a call through the execution service: structured output, its JSON text, an audit record that says mcp", async () => {
    const key = await newKey();
    const { client } = await connect(era, key);
    try {
      const result = await client.callTool({
        name: "math.evaluate",
        arguments: { expression: "6 * 7" },
        _meta: ROOMY_META,
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ value: 42 });
      expect(result.content).toEqual([{ type: "text", text: '{"value":42}' }]);
      const id = result._meta?.[EXECUTION_ID] as string;
      expect((await call("GET", `/v1/executions/${id}`, undefined, bearer(key))).body).toMatchObject({
        status: "succeeded",
        output: { value: 42 },
      });
      const audit = await until(
        () => asAdmin("GET", `/v1/audit?tool=math.evaluate&limit=100`),
        (r) => r.body.records.some((rec: { execution_id: string }) => rec.execution_id === id),
      );
      expect(audit.body.records.find((rec: { execution_id: string }) => rec.execution_id === id)).toMatchObject({
        face: "mcp",
        status: "succeeded",
        mode: "sync",
      });
    } finally {
      await client.close();
    }
  });

  it("answers a run that failed with isError and the error envelope", async () => {
    const { client } = await connect(era);
    try {
      const result = await client.callTool({ name: "lab.reject", arguments: { code: "not_ready" }, _meta: ROOMY_META });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        error: { code: "tool_error", retryable: false, details: { tool_code: "not_ready" } },
      });
      expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual(result.structuredContent);
    } finally {
      await client.close();
    }
  });

  it("refuses an unknown tool and invalid input with -32602 and the envelope; nothing runs", async () => {
    const key = await newKey();
    const { client } = await connect(era, key);
    try {
      const unknown = await refusal(client.callTool({ name: "no.such.tool", arguments: {} }));
      expect(unknown.code).toBe(-32602);
      expect(unknown.data).toMatchObject({ error: { code: "tool_not_found" } });
      const invalid = await refusal(client.callTool({ name: "math.evaluate", arguments: { expression: 7 } }));
      expect(invalid.code).toBe(-32602);
      expect(invalid.data).toMatchObject({
        error: { code: "invalid_input", details: { violations: [{ path: "/expression", keyword: "type" }] } },
      });
      const badMeta = await refusal(
        client.callTool({
          name: "math.evaluate",
          arguments: { expression: "1" },
          _meta: { "io.tool-runtime/versoin": "1.0.0" },
        }),
      );
      expect(badMeta.code).toBe(-32602);
      await expectNothingRan(key);
    } finally {
      await client.close();
    }
  });

  it("calls a named version and keys a call from _meta", async () => {
    const { client } = await connect(era);
    try {
      const pinned = await client.callTool({
        name: "math.evaluate",
        arguments: { expression: "1 + 1" },
        _meta: { "io.tool-runtime/version": "1.0.0", ...ROOMY_META },
      });
      expect(pinned.structuredContent).toEqual({ value: 2 });
      const missing = await refusal(
        client.callTool({
          name: "math.evaluate",
          arguments: { expression: "1" },
          _meta: { "io.tool-runtime/version": "9.0.0" },
        }),
      );
      expect(missing.code).toBe(-32602);
      expect(missing.data).toMatchObject({
        error: { code: "tool_not_found", details: { available_versions: ["1.0.0"] } },
      });

      const key = `mcp-${era}-${crypto.randomUUID()}`;
      const args = {
        name: "math.evaluate",
        arguments: { expression: "2 ^ 10" },
        _meta: { "io.tool-runtime/idempotency_key": key, ...ROOMY_META },
      };
      const first = await client.callTool(args);
      const again = await client.callTool(args);
      expect(again._meta?.[EXECUTION_ID]).toBe(first._meta?.[EXECUTION_ID]);
      expect(again.structuredContent).toEqual({ value: 1024 });
    } finally {
      await client.close();
    }
  });

  it("turns progress events into notifications/progress on the call's stream", async () => {
    const { client } = await connect(era);
    try {
      const seen: { progress: number; total?: number; _meta?: Record<string, unknown> }[] = [];
      const result = await client.callTool(
        { name: "demo.countdown", arguments: { from: 3, interval_ms: 50 } },
        { onprogress: (p) => void seen.push(p as never) },
      );
      expect(result.structuredContent).toEqual({ counted: [3, 2, 1], finished: true });
      expect(seen.map((p) => [p.progress, p.total])).toEqual([
        [33, 100],
        [67, 100],
        [100, 100],
      ]);
    } finally {
      await client.close();
    }
  });

  it("cancels the execution when the client abandons the call", async () => {
    // Closing the request's stream (2026-07-28), or notifications/cancelled on the 2025 lane.
    const key = await newKey();
    const { client } = await connect(era, key);
    try {
      const abort = new AbortController();
      let progressed = 0;
      const pending = client.callTool(
        { name: "demo.countdown", arguments: { from: 600, interval_ms: 100 } }, // a minute: only the abort ends it
        { signal: abort.signal, onprogress: () => (++progressed === 2 ? abort.abort() : undefined) },
      );
      await expect(pending).rejects.toThrow(/abort/i);
      const [execution] = await until(
        () => executionsOf(key, "demo.countdown"),
        (list) => list.length === 1 && list[0].status !== "running",
      );
      expect(execution.status).toBe("cancelled");
      const view = (await call("GET", `/v1/executions/${execution.execution_id}`, undefined, bearer(key))).body;
      expect(view.cancellation.outcome).toBe("cooperative");
      expect(view.partial_output.counted.length).toBeLessThan(600);
    } finally {
      await client.close();
    }
  });

  it("refuses calls over the tenant's rate with -32029 and when to retry", async () => {
    // A burst that is never refilled in time: refused within a few calls however slowly they come.
    const { client } = await connect(era, await newKey({ tenant: tenant("capped") }));
    try {
      let refused: ProtocolError | undefined;
      for (let i = 0; i < 10 && !refused; i++) {
        refused = await client
          .callTool({ name: "math.evaluate", arguments: { expression: "1" }, _meta: ROOMY_META })
          .then(
            () => undefined,
            (e: unknown) => e as ProtocolError,
          );
      }
      expect(refused?.code).toBe(-32029);
      expect(refused?.data).toMatchObject({
        error: { code: "rate_limited", retryable: true, details: { retry_after_ms: expect.any(Number) } },
      });
    } finally {
      await client.close();
    }
  });
});

describe("logs", () => {
  it("sends stdout as notifications/message at the level a 2026-07-28 request asks for, and none without one", async () => {
    const params = { name: "demo.countdown", arguments: { from: 2, interval_ms: 10 }, _meta: { progressToken: "p1" } };
    const withLevel = await modern("tools/call", params, { logLevel: "info" });
    const logs = withLevel.messages.filter((m) => m.method === "notifications/message");
    expect(logs.map((m) => m.params)).toEqual([
      { level: "info", data: "2\n", logger: "demo.countdown/stdout" },
      { level: "info", data: "1\n", logger: "demo.countdown/stdout" },
    ]);
    expect(withLevel.body.result.structuredContent).toEqual({ counted: [2, 1], finished: true });
    const without = await modern("tools/call", params);
    expect(without.messages.filter((m) => m.method === "notifications/message")).toEqual([]);
    expect(without.messages.filter((m) => m.method === "notifications/progress")).toHaveLength(2);
  });

  it("sends them to a 2025 client as they come", async () => {
    const { client } = await connect("legacy");
    try {
      const lines: unknown[] = [];
      client.setNotificationHandler("notifications/message", (n) => void lines.push(n.params.data));
      await client.callTool(
        { name: "demo.countdown", arguments: { from: 2, interval_ms: 10 } },
        { onprogress: () => {} },
      );
      expect(lines).toEqual(["2\n", "1\n"]);
    } finally {
      await client.close();
    }
  });
});

describe("log messages a client asked for, on a plain call", () => {
  // lab.stall is a fast tool (a plain call takes the fast path) that logs once, at info, before it answers.
  const stall = { name: "lab.stall", arguments: { ms: 0 }, _meta: ROOMY_META };
  const logged = (r: { messages: any[] }) =>
    r.messages.filter((m) => m.method === "notifications/message").map((m) => m.params.level);

  it("follows a 2026-07-28 call whose request sets logLevel, and sends what is at that level or above", async () => {
    const info = await modern("tools/call", stall, { logLevel: "info" });
    expect(logged(info)).toEqual(["info"]);
    expect(info.body.result.structuredContent).toEqual({ waited_ms: 0 });
    const warning = await modern("tools/call", stall, { logLevel: "warning" });
    expect(logged(warning)).toEqual([]);
    expect(warning.body.result.structuredContent).toEqual({ waited_ms: 0 });
    expect(logged(await modern("tools/call", stall))).toEqual([]);
  });

  it("keeps a 2025 session's logging/setLevel for its later calls", async () => {
    const s = await legacySession(await newKey());
    expect(logged(await s.request("tools/call", stall))).toEqual([]);
    expect((await s.request("logging/setLevel", { level: "info" })).body).toMatchObject({ result: {} });
    const info = await s.request("tools/call", stall);
    expect(logged(info)).toEqual(["info"]);
    expect(info.body.result.structuredContent).toEqual({ waited_ms: 0 });
    await s.request("logging/setLevel", { level: "error" });
    expect(logged(await s.request("tools/call", stall))).toEqual([]);
  });
});

describe("notifications/cancelled (2025)", () => {
  it("cancels the call it names while that call's stream stays open, which then answers with the cancelled end", async () => {
    const key = await newKey();
    const s = await legacySession(key);
    expect(s.session).toMatch(/^[0-9a-f]{32}$/);
    const res = await fetch(MCP_URL, {
      method: "POST",
      headers: {
        ...bearer(key),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": s.session!,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 41,
        method: "tools/call",
        // A minute of counting: only the cancel ends it.
        params: { name: "demo.countdown", arguments: { from: 600, interval_ms: 100 }, _meta: { progressToken: 41 } },
      }),
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("notifications/progress")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before any progress: ${text}`);
      text += value;
    }
    // Another POST, as a 2025 client cancels: only the session and the request id name the call.
    expect(
      (await s.notify("notifications/cancelled", { requestId: 41, reason: "the user changed their mind" })).status,
    ).toBe(202);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const last = JSON.parse(
      text
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .at(-1)!
        .slice(5),
    );
    expect(last).toMatchObject({
      id: 41,
      result: {
        isError: true,
        structuredContent: { error: { code: "cancelled" }, cancellation: { outcome: "cooperative" } },
      },
    });
  });
});
