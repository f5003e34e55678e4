/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against
 * the stack's /mcp, at each protocol revision it serves. The suite sends no credential and the
 * runtime has no anonymous mode, so it talks to a loopback proxy that adds a test tenant's key.
 * Every scenario that applies to a gateway of tools runs; checks it cannot exercise here are in
 * mcp-conformance-baseline.yml with the reason, as are the scenarios left out.
 *
 * The suite needs Node 22 (`fs.globSync`): it runs on the `node` devDependency's binary.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl } from "./http.ts";
import { newKey } from "./mcp.ts";
import { startCredentialProxy, type CredentialProxy } from "./mcp-proxy.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BASELINE = join(root, "test/e2e/mcp-conformance-baseline.yml");
const SUITE = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const NODE22 = join(root, "node_modules/.bin/node");
const SCENARIO_TIMEOUT_MS = 60_000;

/** Extension scenarios (`tasks-*`) are not on the revisions' timeline: the suite runs them with --force. */
const RUNS: Record<string, string[]> = {
  "2026-07-28": [
    "server-stateless",
    "tools-list",
    "dns-rebinding-protection",
    "caching",
    "server-sse-multiple-streams",
    "http-header-validation",
    "input-required-result-unsupported-methods",
    "input-required-result-validate-input",
    "tasks-capability-negotiation",
    "tasks-dispatch-and-envelope",
    "tasks-request-headers",
  ],
  "2025-11-25": [
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "server-session-lifecycle",
  ],
  "2025-06-18": ["server-initialize", "ping", "logging-set-level", "tools-list"],
};

let proxy: CredentialProxy;

beforeAll(async () => {
  proxy = await startCredentialProxy(
    baseUrl,
    await newKey({ tenant: `conformance-${crypto.randomUUID().slice(0, 8)}` }),
  );
});
afterAll(async () => proxy?.close());

function conformance(spec: string, scenario: string): Promise<{ code: number | null; output: string }> {
  const args = [
    SUITE,
    "server",
    "--url",
    `${proxy.url}/mcp`,
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
    const child = spawn(NODE22, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
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

describe.each(Object.entries(RUNS))("conformance at %s", (spec, scenarios) => {
  it.each(scenarios)(
    "%s passes (baseline aside)",
    async (scenario) => {
      const { code, output } = await conformance(spec, scenario);
      // Exit 0: every check passed or is baselined; a baselined check that passes is stale (exit 1).
      expect(code, output.replace(/\x1b\[[0-9;]*m/g, "")).toBe(0);
      expect(output).not.toMatch(/SKIPPED: scenario/);
    },
    SCENARIO_TIMEOUT_MS + 5_000,
  );
});
