/**
 * Deployable as built (issue 14): every Worker `npm run deploy` ships (scripts/deploy.ts)
 * bundles with `wrangler deploy --dry-run`, which builds the upload exactly as a deploy would
 * and stops before contacting Cloudflare: no account, no network. Where the machine allows it
 * the run has no network at all (`unshare -rn`: a new user and network namespace with only a
 * loopback that is down), so a dry run that needed one would fail here. Needs what `npm test`'s
 * pretest builds first: the validators, the protobuf code and the console's assets.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { SHIPPED } from "../../scripts/deploy.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = mkdtempSync(join(tmpdir(), "tool-runtime-dry-run-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** `unshare -rn` where user namespaces are allowed; otherwise the run keeps the network (and says so). */
const offline = spawnSync("unshare", ["-rn", "true"]).status === 0;

async function dryRun(config: string): Promise<{ code: number; output: string }> {
  const wrangler = join(root, "node_modules", ".bin", "wrangler");
  const args = ["deploy", "--dry-run", "--outdir", join(out, config.replace(/\//g, "_")), "-c", config];
  const run = promisify(execFile)(offline ? "unshare" : wrangler, offline ? ["-rn", wrangler, ...args] : args, {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", CI: "true", NO_COLOR: "1" },
    timeout: 120_000,
  });
  return run.then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, output: `${err.stdout ?? ""}${err.stderr ?? ""}` }),
  );
}

describe("wrangler deploy --dry-run", () => {
  it.each(SHIPPED.map((c) => [c]))("bundles %s", async (config) => {
    const { code, output } = await dryRun(config);
    expect(output, output).toMatch(/--dry-run: exiting now\./);
    expect(code, output).toBe(0);
    const size = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(output);
    expect(size, output).not.toBeNull();
    console.log(`${config}: ${size![1]} (gzip ${size![2]})${offline ? ", built without a network" : ""}`);
  }, 120_000);
});
