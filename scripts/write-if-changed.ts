/**
 * Writes that leave an unchanged file alone. A running `wrangler dev` (`npm start`, the test
 * stacks) reloads its Workers when a file of its bundle or of its assets folder is written,
 * even with the same bytes: one rebuild of the validators, the console or the API reference
 * page restarted every running stack (seen: four reloads per `npm run deploy -- --dry-run`,
 * whose predeploy runs the builds). A build that changed nothing now writes nothing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** Writes `content` to `path` unless it holds exactly that already; true when it wrote. */
export function writeIfChanged(path: string, content: string | Uint8Array): boolean {
  const bytes = typeof content === "string" ? Buffer.from(content) : Buffer.from(content);
  if (existsSync(path) && readFileSync(path).equals(bytes)) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  return true;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => relative(dir, path));
}

/** Makes `to` hold exactly the files of `from`, writing only those that differ and removing the rest. */
export function syncFolder(from: string, to: string): void {
  const wanted = new Set(filesUnder(from));
  for (const name of wanted) writeIfChanged(join(to, name), readFileSync(join(from, name)));
  for (const name of filesUnder(to)) if (!wanted.has(name)) rmSync(join(to, name));
}
