/**
 * docs/deploy.md, followed step by step up to the account boundary. Every shell block is marked
 * `no-account` or `account` (and says so on its first line, where a reader sees it). The
 * `no-account` blocks run here, as written, in order (without a network where the machine
 * allows it: `unshare -rn`); every wrangler command of an `account` block that `npm run deploy`
 * runs is exactly a command of the plan the dry run printed, and every other wrangler command
 * names a real command and real flags (its `--help`).
 */
import { execFile, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { blocksOf, flag } from "../../readme/markdown.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const blocks = blocksOf(readFileSync(join(root, "docs", "deploy.md"), "utf8")).filter((b) => b.lang === "sh");
const offline = spawnSync("unshare", ["-rn", "true"]).status === 0;
const ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  CI: "true",
  NO_COLOR: "1",
};

/** The commands of a block: its lines without comments, a pipe's right side when it is npx. */
const commandsOf = (code: string) =>
  code
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .flatMap((l) => l.split(/\s*(?:\||;)\s*/))
    .filter((l) => l !== "");

/** What the script runs, or prints for the operator to run (secret put): these must match the plan exactly. */
const SCRIPT_RUNS =
  /^npx wrangler (whoami|secret list|secret put|queues info|queues create|d1 list|d1 create|d1 migrations apply|r2 bucket info|r2 bucket create|deploy)\b/;

async function sh(command: string): Promise<{ code: number; output: string }> {
  const run = promisify(execFile)(
    offline ? "unshare" : "sh",
    offline ? ["-rn", "sh", "-c", command] : ["-c", command],
    { cwd: root, env: ENV, timeout: 300_000, maxBuffer: 16 << 20 },
  );
  return run.then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 1,
      output: `${err.stdout ?? ""}${err.stderr ?? ""}`,
    }),
  );
}

describe("docs/deploy.md", () => {
  const outputs: string[] = [];

  beforeAll(async () => {
    // `npm ci` would replace the shared node_modules under other runs: the tree is installed already.
    for (const b of blocks.filter((x) => flag(x, "no-account"))) {
      for (const c of commandsOf(b.code).filter((x) => x !== "npm ci")) {
        const r = await sh(c);
        if (r.code !== 0) throw new Error(`docs/deploy.md:${b.line}: ${c} failed:\n${r.output}`);
        outputs.push(r.output);
      }
    }
  }, 300_000);

  it("marks every shell block as needing the account or not, where a reader sees it", () => {
    expect(blocks.length).toBeGreaterThan(3);
    for (const b of blocks) {
      const kind = flag(b, "no-account") ? "no account" : flag(b, "account") ? "account" : undefined;
      expect(kind, `docs/deploy.md:${b.line}`).toBeDefined();
      expect(b.code.split("\n")[0].startsWith(`# ${kind}`), `docs/deploy.md:${b.line}`).toBe(true);
    }
  });

  it("runs its no-account steps: the dry run plans and bundles without asking Cloudflare", () => {
    const plan = outputs.join("\n");
    expect(plan).toMatch(/Dry run complete: nothing was asked of Cloudflare or uploaded\./);
    expect(plan).toContain('Deploy plan for environment "production"');
    expect(plan).toMatch(/✓ bundled tool-runtime-production: /);
  });

  it("shows, for each account step the script takes, exactly the command it runs", () => {
    const planned = new Set([...outputs.join("\n").matchAll(/\$ (npx [^\n)]+)/g)].map((m) => m[1].trim()));
    const documented = blocks
      .filter((b) => flag(b, "account"))
      .flatMap((b) => commandsOf(b.code))
      .filter((c) => SCRIPT_RUNS.test(c));
    expect(documented.length).toBeGreaterThan(5);
    for (const c of documented) expect(planned, c).toContain(c);
    // And the reference list is the whole deploy, in the script's order.
    const deploys = [...outputs.join("\n").matchAll(/^\s+\$ (npx wrangler deploy -c .+)$/gm)].map((m) => m[1].trim());
    expect(documented.filter((c) => c.startsWith("npx wrangler deploy -c"))).toEqual(deploys);
  });

  it("names only real wrangler commands and flags for the steps the operator takes", async () => {
    const others = blocks
      .filter((b) => flag(b, "account"))
      .flatMap((b) => commandsOf(b.code))
      .filter((c) => c.startsWith("npx wrangler ") && !SCRIPT_RUNS.test(c));
    expect(others.length).toBeGreaterThan(0);
    for (const c of others) {
      const words = c.split(/\s+/).slice(2);
      const sub = words
        .filter((w, i) => !w.startsWith("-") && words.slice(0, i).every((x) => !x.startsWith("-")))
        .slice(0, 2);
      const help = await sh(`npx wrangler ${sub.join(" ")} --help`);
      expect(help.code, help.output).toBe(0);
      for (const f of words.filter((w) => w.startsWith("--")))
        expect(help.output, `${c}: ${f}`).toContain(f.split("=")[0]);
    }
  }, 120_000);
});
