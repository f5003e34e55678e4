/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against
 * the stack's MCP face, at each protocol revision it serves. The suite sends no credential and
 * the runtime has no anonymous mode, so it talks to a loopback proxy that adds a test tenant's key.
 * Every scenario that applies to a gateway of tools runs; checks it cannot pass are in
 * mcp-conformance-baseline.yml with the reason, as are the scenarios left out.
 *
 * The suite's scenarios call fixture tools by name (test_simple_text, greet, …). They are
 * served by a test-only upstream MCP server (mcp-conformance-fixtures.ts), registered for this
 * file with an empty prefix so the tools keep their names, and removed after it: what is graded
 * is what the gateway makes of a real upstream's answers (docs/contract.md#upstreams). The suite
 * talks to a bundle of exactly those tools (`/mcp/{bundle}`, docs/contract.md#bundles), as an
 * operator would serve a client the tools it is for: some checks call the first tool listed
 * with no arguments, which the stack's own tools (demo.countdown needs `from`) rightly refuse.
 *
 * The suite needs Node 22 (`fs.globSync`): it runs on the `node` devDependency's binary.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asAdmin, baseUrl } from "./http.ts";
import { CONFORMANCE_SUITE, newKey, NODE22, ROOT } from "./mcp.ts";
import { FIXTURES, startFixtureUpstream, type FixtureUpstream } from "./mcp-conformance-fixtures.ts";
import { startCredentialProxy, type CredentialProxy } from "./mcp-proxy.ts";
import { provided } from "./stack.ts";

const BASELINE = join(ROOT, "test/e2e/mcp-conformance-baseline.yml");
const SCENARIO_TIMEOUT_MS = 60_000;

/** The scenarios that call the fixture tools (mcp-conformance-fixtures.ts), at both revisions. */
const TOOLS_CALL = [
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "json-schema-2020-12",
];

/** Extension scenarios (`tasks-*`) are not on the revisions' timeline: the suite runs them with --force. */
const RUNS: Record<string, string[]> = {
  "2026-07-28": [
    "tools-list",
    "dns-rebinding-protection",
    "caching",
    "server-sse-multiple-streams",
    "http-header-validation",
    "input-required-result-unsupported-methods",
    "input-required-result-validate-input",
    "http-custom-header-server-validation",
    ...TOOLS_CALL,
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-dispatch-and-envelope",
    "tasks-request-headers",
    "tasks-wire-fields",
    "tasks-request-state-removal",
  ],
  "2025-11-25": [
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "server-session-lifecycle",
    ...TOOLS_CALL,
    // Removed in 2026-07-28 (log messages ride on the request's own `_meta` there).
    "tools-call-with-logging",
  ],
  "2025-06-18": ["server-initialize", "ping", "logging-set-level", "tools-list"],
};

let proxy: CredentialProxy;
let fixtures: FixtureUpstream;
const UPSTREAM = `conformance-${crypto.randomUUID().slice(0, 8)}`;
const BUNDLE = UPSTREAM;

beforeAll(async () => {
  fixtures = await startFixtureUpstream(provided("upstreamPorts")[0]);
  // Registration is global (an upstream serves every tenant): it lives only while this file
  // runs (files run one at a time), and its names are the suite's, which no other tool has.
  const registered = await asAdmin("POST", "/v1/admin/upstreams", {
    name: UPSTREAM,
    url: fixtures.url,
    trust: "community",
    prefix: "",
    tools: ["*"],
    // Quick and harmless (no intent check, retries allowed); the tasks fixtures say how they run.
    defaults: { latency_class: "fast", effects: "read", idempotent: true },
    tool_policies: Object.fromEntries(
      Object.entries(FIXTURES).flatMap(([name, f]) =>
        f.latency_class ? [[name, { latency_class: f.latency_class }]] : [],
      ),
    ),
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  expect([...registered.body.status.served].sort()).toEqual(Object.keys(FIXTURES).sort());
  const bundle = await asAdmin("PUT", `/v1/admin/bundles/${BUNDLE}`, {
    description: "The MCP conformance suite's fixture tools",
    tools: Object.keys(FIXTURES),
  });
  expect(bundle.status, JSON.stringify(bundle.body)).toBe(201);
  proxy = await startCredentialProxy(
    baseUrl,
    await newKey({ tenant: `roomy-conformance-${crypto.randomUUID().slice(0, 8)}` }),
    roomyInstantCalls,
  );
});
afterAll(async () => {
  await proxy?.close();
  await asAdmin("DELETE", `/v1/admin/bundles/${BUNDLE}`);
  await asAdmin("DELETE", `/v1/admin/upstreams/${UPSTREAM}`);
  await fixtures?.close();
});

/**
 * An instant tool's own budget (100 ms) covers the MCP face and the upstream hop too, which a
 * loaded 2-core machine can spend before dispatch (`overloaded`); the suite grades what a call
 * answers, not its budget, so a call of an instant fixture gets a roomy one on its way
 * (`_meta["io.tool-runtime/limits"]`, docs/contract.md#mcp), as every other test's call does.
 */
function roomyInstantCalls(body: Buffer): Buffer {
  let message: any;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    return body;
  }
  const name = message?.method === "tools/call" ? message.params?.name : undefined;
  if (typeof name !== "string" || FIXTURES[name]?.latency_class !== "instant") return body;
  const meta = message.params._meta ?? {};
  if (meta["io.tool-runtime/limits"] !== undefined) return body;
  message.params._meta = { ...meta, "io.tool-runtime/limits": { timeout_ms: 30_000 } };
  return Buffer.from(JSON.stringify(message));
}

function conformance(spec: string, scenario: string): Promise<{ code: number | null; output: string }> {
  const args = [
    CONFORMANCE_SUITE,
    "server",
    "--url",
    `${proxy.url}/mcp/${BUNDLE}`,
    "--scenario",
    scenario,
    "--spec-version",
    spec,
    "--expected-failures",
    BASELINE,
    "--timeout",
    String(SCENARIO_TIMEOUT_MS - 10_000),
  ];
  if (scenario.startsWith("tasks-")) args.push("--force");
  return new Promise((resolve) => {
    const child = spawn(NODE22, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), SCENARIO_TIMEOUT_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Run first and on its own: `server-stateless` gives some calls 500 ms to answer (its
 * `test_logging_tool` call, through the runtime and the upstream hop), which the scenarios
 * started side by side below, each a Node process, can take from a 2-core machine. The tool is
 * called once before, so the scenario does not pay for the first call of the upstream hop.
 */
describe("conformance at 2026-07-28, alone", () => {
  it("server-stateless passes (baseline aside)", { timeout: SCENARIO_TIMEOUT_MS + 15_000 }, async () => {
    const warm = await fetch(`${proxy.url}/mcp/${BUNDLE}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "test_logging_tool",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "test_logging_tool",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(warm.status).toBe(200);
    await warm.text();
    const { code, output } = await conformance("2026-07-28", "server-stateless");
    expect(code, output.replace(/\x1b\[[0-9;]*m/g, "")).toBe(0);
    expect(output).not.toMatch(/SKIPPED: scenario/);
  });
});

/**
 * A revision's scenarios run side by side (at most the e2e project's `maxConcurrency` at once):
 * each is its own Node process and its own MCP session with its own requests, and most of a
 * scenario's time is that process starting. The tenant is a roomy one, so they never wait on
 * each other's rate.
 */
describe.concurrent.each(Object.entries(RUNS))("conformance at %s", (spec, scenarios) => {
  it.for(scenarios)(
    "%s passes (baseline aside)",
    { timeout: SCENARIO_TIMEOUT_MS + 5_000 },
    async (scenario, { expect }) => {
      const { code, output } = await conformance(spec, scenario);
      // Exit 0: every check passed or is baselined; a baselined check that passes is stale (exit 1).
      expect(code, output.replace(/\x1b\[[0-9;]*m/g, "")).toBe(0);
      expect(output).not.toMatch(/SKIPPED: scenario/);
    },
  );
});
