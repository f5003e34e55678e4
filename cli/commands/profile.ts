/**
 * `trt profile add|list|show|remove`: the profiles file (cli/profiles.ts). A profile keeps where
 * its key is, never the key; `--secret-store` reads the key from standard input into the OS
 * secret store, so it appears on no command line.
 */
import { existsSync, statSync } from "node:fs";
import type { Flags } from "../args.ts";
import { keyOf, resolveConnection } from "../connection.ts";
import type { Out } from "../context.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { checkProfile, configPath, expandHome, readProfiles, writeProfiles, type Profile } from "../profiles.ts";
import { pretty } from "../render.ts";
import { deleteSecret, saveSecret, storeOfPlatform } from "../secret-store.ts";
import { table } from "../table.ts";

export interface ProfileCli {
  flags: Flags;
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Out;
  stderr: Out;
}

const sourceOf = (p: Profile) =>
  p.key_env ? `$${p.key_env}` : p.key_file ? `file ${p.key_file}` : p.key_store ? p.key_store : "none";

export async function profileAdd(cli: ProfileCli, [name]: string[]): Promise<number> {
  const path = configPath(cli.env);
  const file = readProfiles(path);
  const f = cli.flags;
  const profile: Profile = { url: f.url! };
  if (f.keyEnv) profile.key_env = f.keyEnv;
  if (f.keyFile) {
    profile.key_file = f.keyFile;
    const real = expandHome(f.keyFile, cli.env);
    if (!existsSync(real))
      cli.stderr.write(`trt: note: ${real} does not exist yet; put the key there, readable by you only (chmod 600)\n`);
    else if (process.platform !== "win32" && (statSync(real).mode & 0o077) !== 0)
      throw new UsageError(`${real} is readable by others; chmod 600 ${real} first`);
  }
  if (f.secretStore) profile.key_store = storeOfPlatform();
  checkProfile(name, profile, "the command line");
  if (profile.key_store) {
    if (cli.stdin.isTTY) cli.stderr.write(`API key for profile ${name}, then Enter: `);
    const key = await firstLine(cli.stdin);
    if (!key) throw new UsageError("no key on standard input for --secret-store");
    saveSecret(profile.key_store, name, key, cli.env);
  }
  const replaced = name in file.profiles;
  file.profiles[name] = profile;
  if (f.default || file.default === undefined) file.default = name;
  writeProfiles(path, file);
  if (f.json) cli.stdout.write(`${pretty({ name, ...profile, default: file.default === name, path })}\n`);
  else
    cli.stdout.write(
      `✓ ${replaced ? "replaced" : "added"} profile ${name}${file.default === name ? " (the default)" : ""} in ${path}\n`,
    );
  return EXIT.ok;
}

export async function profileList(cli: ProfileCli): Promise<number> {
  const path = configPath(cli.env);
  const file = readProfiles(path);
  const names = Object.keys(file.profiles).sort();
  if (cli.flags.json) cli.stdout.write(`${pretty({ path, default: file.default ?? null, profiles: file.profiles })}\n`);
  else if (names.length === 0)
    cli.stdout.write(`no profiles in ${path} (trt profile add NAME --url URL --key-env VAR)\n`);
  else
    cli.stdout.write(
      table(
        ["NAME", "URL", "KEY FROM", "DEFAULT"],
        names.map((n) => [n, file.profiles[n].url, sourceOf(file.profiles[n]), n === file.default ? "yes" : ""]),
      ),
    );
  return EXIT.ok;
}

/** One profile, or (without a name) what a command would use now: URL, profile and where the key comes from. */
export async function profileShow(cli: ProfileCli, [name]: string[]): Promise<number> {
  const path = configPath(cli.env);
  if (name === undefined) {
    const conn = resolveConnection(cli.flags, cli.env, (line) => cli.stderr.write(`${line}\n`));
    const view = {
      path,
      url: conn.url,
      profile: conn.profile ?? null,
      key_from: conn.keySource,
      key_found: conn.key !== undefined,
    };
    cli.stdout.write(
      cli.flags.json
        ? `${pretty(view)}\n`
        : table(
            ["PROFILE", "URL", "KEY FROM", "KEY FOUND"],
            [[view.profile, view.url, view.key_from, view.key_found ? "yes" : "no"]],
          ),
    );
    return EXIT.ok;
  }
  const file = readProfiles(path);
  const p = file.profiles[name];
  if (!p) throw new UsageError(`no profile "${name}" in ${path}`);
  let found = false;
  try {
    found = keyOf(name, p, cli.env).key !== undefined;
  } catch (err) {
    cli.stderr.write(`trt: ${(err as Error).message}\n`);
  }
  const view = { name, ...p, default: file.default === name, key_found: found };
  cli.stdout.write(
    cli.flags.json
      ? `${pretty(view)}\n`
      : table(
          ["NAME", "URL", "KEY FROM", "KEY FOUND", "DEFAULT"],
          [[name, p.url, sourceOf(p), found ? "yes" : "no", view.default ? "yes" : ""]],
        ),
  );
  return EXIT.ok;
}

export async function profileRemove(cli: ProfileCli, [name]: string[]): Promise<number> {
  const path = configPath(cli.env);
  const file = readProfiles(path);
  const p = file.profiles[name];
  if (!p) throw new UsageError(`no profile "${name}" in ${path}`);
  if (p.key_store) deleteSecret(p.key_store, name, cli.env);
  delete file.profiles[name];
  if (file.default === name) delete file.default;
  writeProfiles(path, file);
  cli.stdout.write(cli.flags.json ? `${pretty({ removed: name })}\n` : `✓ removed profile ${name}\n`);
  return EXIT.ok;
}

async function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split("\n")[0].trim();
}
