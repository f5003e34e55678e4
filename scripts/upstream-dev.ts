/**
 * Runs the example upstream MCP server (examples/upstream-mcp) alone under `wrangler dev`, for its
 * test and the conformance run: free loopback ports, a state folder and a dev registry of its
 * own (so it can answer for no other session's Workers), stopped by its process group id.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export interface UpstreamDev {
  /** Origin of the Worker, e.g. http://127.0.0.1:40123 (the MCP endpoint is `${origin}/mcp`). */
  origin: string;
  /** Everything wrangler printed so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the upstream with `vars` (e.g. `{ UPSTREAM_TOKENS: "a,b", ADMIN_SECRET: "s" }`) and
 * resolves once GET /healthz answers 200. `port`: a fixed one (a runtime's egress allow-list
 * names it), else a free one.
 */
export async function startUpstreamDev(
  vars: Record<string, string> = {},
  readyWithinMs = 120_000,
  fixedPort?: number,
): Promise<UpstreamDev> {
  const [port, inspectorPort] = [fixedPort ?? (await freePort()), await freePort()];
  const state = mkdtempSync(join(tmpdir(), "mcp-upstream-"));
  const args = [
    "wrangler",
    "dev",
    "-c",
    "examples/upstream-mcp/wrangler.jsonc",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
  ];
  args.push("--inspector-port", String(inspectorPort), "--persist-to", join(state, "data"));
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn("npx", args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      CI: "true",
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_REGISTRY_PATH: join(state, "dev-registry"),
    },
  });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      process.kill(-child.pid, "SIGTERM");
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(state, { recursive: true, force: true });
  };

  const origin = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + readyWithinMs; ;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the upstream's wrangler dev exited early:\n${log}`);
    }
    const ready = await fetch(`${origin}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the upstream was not ready within ${readyWithinMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { origin, log: () => log, stop };
}
