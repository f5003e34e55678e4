/**
 * `npm run conformance:upstream`: runs the official MCP conformance suite
 * (@modelcontextprotocol/conformance, server mode) against the example upstream
 * (examples/upstream-mcp) under wrangler dev, at both protocol eras it serves. Only the scenarios
 * that apply to a tools-only server run; the rest of the suite calls tools, prompts and
 * resources by names this upstream does not have. Known gaps are listed, with reasons, in
 * examples/upstream-mcp/conformance-baseline.yml. Exit code 0 when everything else passes.
 *
 * The suite needs Node 22 (`fs.globSync`): run it through npm, whose PATH has the `node`
 * devDependency first.
 */
import { spawn } from "node:child_process";
import { startUpstreamDev } from "./upstream-dev.ts";

const RUNS: Record<string, string[]> = {
  // Stateless, per-request `_meta`, no handshake.
  "2026-07-28": [
    "server-stateless",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
    "input-required-result-unsupported-methods",
    "input-required-result-validate-input",
  ],
  // The stateless 2025 lane: initialize, then one POST per request.
  "2025-11-25": ["server-initialize", "ping", "logging-set-level", "tools-list", "dns-rebinding-protection"],
};
const BASELINE = "examples/upstream-mcp/conformance-baseline.yml";

function conformance(url: string, spec: string, scenario: string): Promise<{ code: number; output: string }> {
  const args = [
    "conformance",
    "server",
    "--url",
    url,
    "--scenario",
    scenario,
    "--spec-version",
    spec,
    "--expected-failures",
    BASELINE,
  ];
  return new Promise((resolve) => {
    const child = spawn("npx", args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("exit", (code) => resolve({ code: code ?? 1, output }));
  });
}

const upstream = await startUpstreamDev();
let failed = 0;
try {
  for (const [spec, scenarios] of Object.entries(RUNS)) {
    for (const scenario of scenarios) {
      const { code, output } = await conformance(`${upstream.origin}/mcp`, spec, scenario);
      const passed = /Passed: (\d+)\/(\d+)/.exec(output);
      console.log(
        `${code === 0 ? "✓" : "✗"} ${spec} ${scenario}${passed ? ` (${passed[1]}/${passed[2]} checks)` : ""}`,
      );
      if (code !== 0) {
        failed += 1;
        console.log(output);
      }
    }
  }
} finally {
  await upstream.stop();
}
console.log(failed === 0 ? "conformance: all applicable scenarios pass" : `conformance: ${failed} scenario(s) failed`);
process.exit(failed === 0 ? 0 : 1);
