/**
 * The OS secret store, where one is installed: `secret-tool` (libsecret: GNOME Keyring,
 * KWallet) on Linux, `security` (the keychain) on macOS. The key never goes on a command
 * line: secret-tool reads it from standard input, and `security -i` reads its command there.
 */
import { spawnSync } from "node:child_process";
import { UsageError } from "./exit-codes.ts";

export type StoreKind = "secret-tool" | "keychain";

export const storeOfPlatform = (platform = process.platform): StoreKind =>
  platform === "darwin" ? "keychain" : "secret-tool";

function run(command: string, args: string[], input: string, env: Record<string, string | undefined>): string {
  const r = spawnSync(command, args, { input, encoding: "utf8", env: env as NodeJS.ProcessEnv, timeout: 30_000 });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
    throw new UsageError(`no secret store: ${command} is not installed; use --key-file or --key-env instead`);
  if (r.status !== 0)
    throw new UsageError(
      `${command} failed (exit ${r.status ?? r.signal}): ${(r.stderr || "").trim().split("\n")[0] || "no message"}`,
    );
  return r.stdout;
}

const quote = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export function saveSecret(
  kind: StoreKind,
  profile: string,
  key: string,
  env: Record<string, string | undefined>,
): void {
  if (kind === "secret-tool")
    run("secret-tool", ["store", `--label=trt profile ${profile}`, "service", "trt", "profile", profile], key, env);
  else run("security", ["-i"], `add-generic-password -U -s trt -a ${quote(profile)} -w ${quote(key)}\n`, env);
}

export function loadSecret(kind: StoreKind, profile: string, env: Record<string, string | undefined>): string {
  const out =
    kind === "secret-tool"
      ? run("secret-tool", ["lookup", "service", "trt", "profile", profile], "", env)
      : run("security", ["find-generic-password", "-s", "trt", "-a", profile, "-w"], "", env);
  const key = out.trim();
  if (!key)
    throw new UsageError(
      `the secret store has no key for profile "${profile}" (trt profile add ${profile} --secret-store)`,
    );
  return key;
}

export function deleteSecret(kind: StoreKind, profile: string, env: Record<string, string | undefined>): void {
  try {
    if (kind === "secret-tool") run("secret-tool", ["clear", "service", "trt", "profile", profile], "", env);
    else run("security", ["delete-generic-password", "-s", "trt", "-a", profile], "", env);
  } catch {
    // Already gone, or the store is not there: the profile goes anyway.
  }
}
