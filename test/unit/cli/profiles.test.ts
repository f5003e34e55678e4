/**
 * trt's profiles: which runtime and key a command uses, key files others can read refused,
 * the OS secret store (a stand-in `secret-tool` on PATH), and `trt profile add|list|show|remove`
 * run as a user runs them.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveConnection } from "../../../cli/connection.ts";
import { UsageError } from "../../../cli/exit-codes.ts";
import { configPath, writeProfiles } from "../../../cli/profiles.ts";

const TRT = join(import.meta.dirname, "..", "..", "..", "bin", "trt.js");
let dir: string;
let config: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "trt-profiles-"));
  config = join(dir, "config.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, key: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, `${key}\n`);
  chmodSync(path, mode);
  return path;
}

function trt(
  args: string[],
  o: { env?: Record<string, string>; stdin?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [TRT, ...args],
      { env: { PATH: process.env.PATH, HOME: dir, TRT_CONFIG: config, ...o.env } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
    child.stdin!.end(o.stdin ?? "");
  });
}

describe("which runtime and key trt uses", () => {
  it("finds the file at $TRT_CONFIG, else under $XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configPath({ TRT_CONFIG: "/x/c.json", XDG_CONFIG_HOME: "/xdg", HOME: "/h" })).toBe("/x/c.json");
    expect(configPath({ XDG_CONFIG_HOME: "/xdg", HOME: "/h" })).toBe("/xdg/trt/config.json");
    expect(configPath({ HOME: "/h" })).toBe("/h/.config/trt/config.json");
  });

  it("takes --profile over TRT_URL/TRT_KEY, those over the file's default, and --key over all (with a warning)", () => {
    writeProfiles(config, {
      default: "local",
      profiles: {
        local: { url: "http://local", key_env: "LOCAL_KEY" },
        prod: { url: "https://prod", key_file: keyFile("prod.key", "trt_prod") },
      },
    });
    const env = { TRT_CONFIG: config, LOCAL_KEY: "trt_local" };
    expect(resolveConnection({}, env)).toMatchObject({
      url: "http://local",
      key: "trt_local",
      profile: "local",
      keySource: "$LOCAL_KEY",
    });
    expect(resolveConnection({}, { ...env, TRT_URL: "http://env", TRT_KEY: "trt_env" })).toMatchObject({
      url: "http://env",
      key: "trt_env",
      keySource: "TRT_KEY",
    });
    expect(resolveConnection({}, { ...env, TRT_API_KEY: "trt_api" })).toMatchObject({
      key: "trt_api",
      keySource: "TRT_API_KEY",
    });
    expect(resolveConnection({ profile: "prod" }, { ...env, TRT_URL: "http://env", TRT_KEY: "trt_env" })).toMatchObject(
      { url: "https://prod", key: "trt_prod", profile: "prod" },
    );
    expect(resolveConnection({}, { ...env, TRT_PROFILE: "prod" })).toMatchObject({
      url: "https://prod",
      key: "trt_prod",
    });
    const warnings: string[] = [];
    expect(
      resolveConnection({ key: "trt_argv", url: "http://flag", profile: "prod" }, env, (w) => warnings.push(w)),
    ).toMatchObject({ url: "http://flag", key: "trt_argv" });
    expect(warnings).toEqual([expect.stringContaining("--key shows the key in process lists")]);
    expect(resolveConnection({}, { TRT_CONFIG: join(dir, "none.json") })).toEqual({
      url: "http://127.0.0.1:8787",
      keySource: "none",
    });
  });

  it("refuses a key file others can read, a missing key variable, an unknown profile and a file holding a key", () => {
    writeProfiles(config, {
      profiles: {
        open: { url: "http://x", key_file: keyFile("open.key", "trt_x", 0o644) },
        env: { url: "http://x", key_env: "UNSET_VAR" },
      },
    });
    expect(() => resolveConnection({ profile: "open" }, { TRT_CONFIG: config })).toThrow(
      /readable by others \(mode 644\); chmod 600/,
    );
    expect(() => resolveConnection({ profile: "env" }, { TRT_CONFIG: config })).toThrow(
      /\$UNSET_VAR, which is not set/,
    );
    expect(() => resolveConnection({ profile: "nope" }, { TRT_CONFIG: config })).toThrow(
      /no profile "nope" .* \(it has open, env\)/,
    );
    writeFileSync(config, JSON.stringify({ profiles: { p: { url: "http://x", key: "trt_plain" } } }));
    expect(() => resolveConnection({}, { TRT_CONFIG: config })).toThrow(UsageError);
    writeFileSync(config, "{ not json");
    expect(() => resolveConnection({}, { TRT_CONFIG: config })).toThrow(/is not JSON/);
  });
});

describe("trt profile", () => {
  it("adds, lists, shows and removes profiles, keeping where the key is and never the key", async () => {
    const add = await trt(["profile", "add", "local", "--url", "http://127.0.0.1:8787", "--key-env", "LOCAL_KEY"]);
    expect(add).toMatchObject({ code: 0, stdout: `✓ added profile local (the default) in ${config}\n` });
    expect(
      (
        await trt([
          "profile",
          "add",
          "prod",
          "--url",
          "https://prod.example",
          "--key-file",
          keyFile("prod.key", "trt_prod"),
        ])
      ).code,
    ).toBe(0);
    const list = await trt(["profile", "list"]);
    expect(list.stdout.split("\n")[0]).toMatch(/^NAME +URL +KEY FROM +DEFAULT$/);
    expect(list.stdout).toMatch(/^local +http:\/\/127\.0\.0\.1:8787 +\$LOCAL_KEY +yes$/m);
    expect(JSON.parse((await trt(["profile", "list", "-o", "json"])).stdout)).toMatchObject({
      default: "local",
      profiles: { prod: { url: "https://prod.example" } },
    });
    const inUse = JSON.parse((await trt(["profile", "show", "--json"], { env: { LOCAL_KEY: "trt_local" } })).stdout);
    expect(inUse).toMatchObject({
      profile: "local",
      url: "http://127.0.0.1:8787",
      key_from: "$LOCAL_KEY",
      key_found: true,
    });
    expect(JSON.stringify(inUse)).not.toContain("trt_local");
    expect((await trt(["profile", "show", "prod"])).stdout).toMatch(
      /^prod +https:\/\/prod\.example +file \S+prod\.key +yes/m,
    );
    expect(readFileSync(config, "utf8")).not.toContain("trt_prod");
    expect((await trt(["profile", "remove", "local"])).stdout).toBe("✓ removed profile local\n");
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ profiles: { prod: expect.any(Object) } });
  });

  it("refuses bad input with exit 2 and one line: no --url, a key on the command line, an unknown profile", async () => {
    for (const args of [
      ["profile", "add", "p"],
      ["profile", "add", "p", "--url", "http://x", "--key", "trt_k"],
      ["profile", "remove", "nope"],
      ["tools", "--profile", "nope"],
    ]) {
      const r = await trt(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr.trimEnd().split("\n"), args.join(" ")).toHaveLength(1);
    }
  });

  it("keeps a key in the OS secret store, read from standard input, and finds it there", async () => {
    // A stand-in for libsecret's secret-tool: the same arguments, a file for the store.
    const bin = join(dir, "bin");
    const store = join(dir, "store");
    const script = `#!/bin/sh\ncase "$1" in\n  store) cat > "${store}.$6" ;;\n  lookup) cat "${store}.$5" 2>/dev/null ;;\n  clear) rm -f "${store}.$5" ;;\nesac\n`;
    mkdirSync(bin);
    writeFileSync(join(bin, "secret-tool"), script, { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const add = await trt(["profile", "add", "vault", "--url", "http://x", "--secret-store"], {
      env,
      stdin: "trt_from_stdin\n",
    });
    expect(add.code).toBe(0);
    expect(readFileSync(`${store}.vault`, "utf8")).toBe("trt_from_stdin");
    expect(readFileSync(config, "utf8")).toContain('"key_store": "secret-tool"');
    expect(resolveConnection({ profile: "vault" }, { TRT_CONFIG: config, PATH: env.PATH })).toMatchObject({
      key: "trt_from_stdin",
      keySource: "secret-tool",
    });
    expect((await trt(["profile", "remove", "vault"], { env })).code).toBe(0);
    expect(() => readFileSync(`${store}.vault`)).toThrow();
  });
});
