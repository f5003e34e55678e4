/**
 * `npx trt` right after `npm install`, before any build: package.json's "bin" is a committed
 * launcher (bin/trt.js) that runs cli/trt.ts. Each test runs in a copy of the project without
 * dist/, with node_modules linked, as a fresh clone has it.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
let clone: string;

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), "trt-clone-"));
  for (const part of ["package.json", "bin", "cli", "client", "src"])
    cpSync(join(root, part), join(clone, part), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(clone, "node_modules"));
});
afterAll(() => rmSync(clone, { recursive: true, force: true }));

// Only what a user's shell would have: no TRT_KEY, no profiles file of the machine's user. npx
// links a project's own bin through its cache; a cache of the clone's own leaves the user's alone.
const env = () => ({
  PATH: process.env.PATH,
  HOME: clone,
  TRT_CONFIG: join(clone, "no-config.json"),
  npm_config_cache: join(clone, ".npm"),
});

describe("trt's launcher", () => {
  it("runs the README's npx trt --help and npx trt --version with no dist/", async () => {
    expect(existsSync(join(clone, "dist"))).toBe(false);
    const help = await run("npx", ["trt", "--help"], { cwd: clone, env: env() });
    expect(help.stdout).toMatch(/^usage: trt <command>/);
    expect(help.stdout).toContain("exit codes: 0 done");
    const v = await run("npx", ["trt", "--version"], { cwd: clone, env: env() });
    expect(v.stdout).toBe(`${version}\n`);
    expect(v.stderr).toBe("");
  }, 60_000);

  // Node 20 (the machine's own, where there is one) cannot strip types: the launcher starts the project's Node 22.
  it.runIf(existsSync("/usr/bin/node"))(
    "runs the source under the project's Node 22 when started by an older Node, exit codes included",
    async () => {
      const v = await run("/usr/bin/node", [join(clone, "bin", "trt.js"), "-V"], { cwd: clone, env: env() });
      expect(v.stdout).toBe(`${version}\n`);
      const bad = await run("/usr/bin/node", [join(clone, "bin", "trt.js"), "tols"], { cwd: clone, env: env() }).catch(
        (err: { code: number; stderr: string }) => err,
      );
      expect(bad).toMatchObject({
        code: 2,
        stderr: 'trt: unknown command "tols" (did you mean tools?); trt --help lists the commands\n',
      });
    },
    60_000,
  );

  it("says what to do when neither the source can run nor a build exists", async () => {
    const bare = mkdtempSync(join(tmpdir(), "trt-bare-"));
    try {
      cpSync(join(root, "bin"), join(bare, "bin"), { recursive: true });
      cpSync(join(root, "package.json"), join(bare, "package.json"));
      const r = await run(process.execPath, [join(bare, "bin", "trt.js"), "--help"], { env: env() }).catch(
        (err: { code: number; stderr: string }) => err,
      );
      expect(r).toMatchObject({ code: 2 });
      expect((r as { stderr: string }).stderr).toContain("npm run build:client");
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
