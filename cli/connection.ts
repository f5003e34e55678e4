/**
 * Which runtime and which key: flags, then the profile asked for, then the environment, then
 * the profiles file's default. A profile named on purpose (--profile, $TRT_PROFILE) beats
 * TRT_URL/TRT_KEY, so a shell that exports a local key cannot send it to another runtime.
 */
import { readFileSync, statSync } from "node:fs";
import type { Flags } from "./args.ts";
import { UsageError } from "./exit-codes.ts";
import { configPath, expandHome, readProfiles, type Profile } from "./profiles.ts";
import { loadSecret } from "./secret-store.ts";

export const DEFAULT_URL = "http://127.0.0.1:8787";

type Env = Record<string, string | undefined>;

export interface Connection {
  url: string;
  /** Undefined when no source had one (commands that need it refuse with exit 2). */
  key?: string;
  /** The profile in use, if any. */
  profile?: string;
  /** Where the key came from, for `trt profile show` and error messages. */
  keySource: string;
}

export function resolveConnection(
  flags: Pick<Flags, "url" | "key" | "profile">,
  env: Env,
  warn: (line: string) => void = () => {},
): Connection {
  const path = configPath(env);
  const file = readProfiles(path);
  const chosenName = flags.profile ?? env.TRT_PROFILE;
  if (chosenName !== undefined && !(chosenName in file.profiles)) {
    const known = Object.keys(file.profiles);
    throw new UsageError(
      `no profile "${chosenName}" in ${path}${known.length ? ` (it has ${known.join(", ")})` : ""}; trt profile add ${chosenName} --url URL …`,
    );
  }
  const chosen = chosenName !== undefined ? file.profiles[chosenName] : undefined;
  const fallbackName = file.default;
  const fallback = fallbackName !== undefined ? file.profiles[fallbackName] : undefined;

  // --key works, but other users of the machine see argv in `ps` and shells keep it in history.
  if (flags.key !== undefined)
    warn(
      "trt: warning: --key shows the key in process lists and shell history; prefer TRT_KEY or a profile (trt profile --help)",
    );
  const envKey = env.TRT_KEY || env.TRT_API_KEY;
  const envKeyName = env.TRT_KEY ? "TRT_KEY" : "TRT_API_KEY";

  const url = flags.url ?? chosen?.url ?? env.TRT_URL ?? fallback?.url ?? DEFAULT_URL;
  if (flags.key !== undefined) return { url, key: flags.key, profile: chosenName, keySource: "--key" };
  if (chosen) return { url, ...keyOf(chosenName!, chosen, env), profile: chosenName };
  if (envKey) return { url, key: envKey, keySource: envKeyName };
  if (fallback) return { url, ...keyOf(fallbackName!, fallback, env), profile: fallbackName };
  return { url, keySource: "none" };
}

/** A profile's key from where it says; a source that is set but unusable is a usage error. */
export function keyOf(name: string, p: Profile, env: Env): { key?: string; keySource: string } {
  if (p.key_env !== undefined) {
    const key = env[p.key_env];
    if (!key) throw new UsageError(`profile "${name}" takes its key from $${p.key_env}, which is not set`);
    return { key, keySource: `$${p.key_env}` };
  }
  if (p.key_file !== undefined) return { key: readKeyFile(expandHome(p.key_file, env), name), keySource: p.key_file };
  if (p.key_store !== undefined) return { key: loadSecret(p.key_store, name, env), keySource: p.key_store };
  return { keySource: "none" };
}

/** A key file others can read is refused, as ssh refuses such a private key. */
export function readKeyFile(path: string, profile: string): string {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (err) {
    throw new UsageError(
      `profile "${profile}": cannot read its key file ${path} (${(err as NodeJS.ErrnoException).code})`,
    );
  }
  if (process.platform !== "win32" && (mode & 0o077) !== 0)
    throw new UsageError(
      `profile "${profile}": its key file ${path} is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 ${path}`,
    );
  const key = readFileSync(path, "utf8").trim();
  if (!key) throw new UsageError(`profile "${profile}": its key file ${path} is empty`);
  return key;
}
