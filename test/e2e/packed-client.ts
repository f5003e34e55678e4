/**
 * The client as a user receives it: `npm pack` of client/ (after `npm run build:client`), in a
 * temporary folder. `install` puts the tarball into a scratch project with `npm install
 * --offline`; its one dependency, eventsource-parser, comes from a tarball packed from this
 * repository's node_modules, so nothing is fetched from the registry.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLIENT_DIR = fileURLToPath(new URL("../../client/", import.meta.url));
export const PARSER_DIR = fileURLToPath(new URL("../../node_modules/eventsource-parser/", import.meta.url));

export interface Packed {
  dir: string;
  tarball: string;
  /** Paths inside the package, as `npm pack` listed them. */
  files: string[];
  remove(): void;
}

function pack(from: string, to: string): { filename: string; files: { path: string }[] } {
  // --ignore-scripts: the client's prepack only checks that dist/ is built; eventsource-parser's would rebuild it.
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", to], {
    cwd: from,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(out)[0];
}

export function packClient(): Packed {
  const dir = mkdtempSync(join(tmpdir(), "trt-client-pack-"));
  const { filename, files } = pack(CLIENT_DIR, dir);
  return {
    dir,
    tarball: join(dir, filename),
    files: files.map((f) => f.path),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A scratch ES-module project with the packed client installed; returns its folder. */
export function installInScratchProject(packed: Packed): string {
  const project = join(packed.dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "client-user", private: true, type: "module" }));
  const parser = pack(PARSER_DIR, packed.dir);
  execFileSync(
    "npm",
    [
      "install",
      "--offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      join(packed.dir, parser.filename),
      packed.tarball,
    ],
    { cwd: project, stdio: ["ignore", "pipe", "pipe"] },
  );
  return project;
}
