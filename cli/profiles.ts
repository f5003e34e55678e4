/**
 * The profiles file: named runtimes, each with its URL and where its key is — an environment
 * variable, a file readable by its owner only, or the OS secret store — never the key itself,
 * so the file can be shared, backed up or shown without leaking a credential.
 *
 *   { "default": "local",
 *     "profiles": { "local": { "url": "http://127.0.0.1:8787", "key_env": "TRT_LOCAL_KEY" },
 *                   "prod":  { "url": "https://tools.example.com", "key_file": "~/.config/trt/prod.key" } } }
 *
 * Where: $TRT_CONFIG, else $XDG_CONFIG_HOME/trt/config.json, else ~/.config/trt/config.json.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { UsageError } from "./exit-codes.ts";

export interface Profile {
  url: string;
  key_env?: string;
  key_file?: string;
  /** The key is in the OS secret store under service "trt", account the profile's name. */
  key_store?: "secret-tool" | "keychain";
}

export interface ProfilesFile {
  default?: string;
  profiles: Record<string, Profile>;
}

type Env = Record<string, string | undefined>;

export function configPath(env: Env): string {
  if (env.TRT_CONFIG) return env.TRT_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "trt", "config.json");
}

/** `~/…` in a key_file path is the home directory, as a shell would read it. */
export function expandHome(path: string, env: Env): string {
  return path === "~" || path.startsWith("~/") ? join(env.HOME || homedir(), path.slice(1)) : path;
}

/** The file, checked once as it is read; a missing file is no profiles. */
export function readProfiles(path: string): ProfilesFile {
  if (!existsSync(path)) return { profiles: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new UsageError(`the profiles file ${path} is not JSON (${(err as Error).message})`);
  }
  const file = raw as Partial<ProfilesFile> | null;
  if (!file || typeof file !== "object" || typeof file.profiles !== "object" || file.profiles === null)
    throw new UsageError(`the profiles file ${path} needs a "profiles" object`);
  for (const [name, p] of Object.entries(file.profiles)) checkProfile(name, p, path);
  if (file.default !== undefined && !(file.default in file.profiles))
    throw new UsageError(`the profiles file ${path} names default "${file.default}", which is not one of its profiles`);
  return { default: file.default, profiles: file.profiles };
}

export function checkProfile(name: string, p: Profile, where: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name))
    throw new UsageError(`profile name "${name}" (in ${where}) must be letters, digits, . _ - (at most 64)`);
  if (!p || typeof p !== "object" || typeof p.url !== "string" || !/^https?:\/\//.test(p.url))
    throw new UsageError(`profile "${name}" in ${where} needs a "url" (http:// or https://)`);
  const sources = [p.key_env, p.key_file, p.key_store].filter((x) => x !== undefined);
  if (sources.length > 1)
    throw new UsageError(`profile "${name}" in ${where} has more than one of key_env, key_file and key_store`);
  if (p.key_store !== undefined && p.key_store !== "secret-tool" && p.key_store !== "keychain")
    throw new UsageError(`profile "${name}" in ${where}: key_store is secret-tool or keychain`);
  if ("key" in p)
    throw new UsageError(
      `profile "${name}" in ${where} holds a key: keep it in key_env, key_file or key_store instead`,
    );
}

/** Written whole and renamed into place (a crash leaves the old file), readable by its owner only. */
export function writeProfiles(path: string, file: ProfilesFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
  renameSync(tmp, path);
}
