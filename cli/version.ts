/** trt's version: package.json's, found from this file (cli/ in the source, dist/cli/ when built). */
import { readFileSync } from "node:fs";

export function cliVersion(): string {
  let dir = new URL("./", import.meta.url);
  for (let up = 0; up < 4; up++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as { name?: string; version?: string };
      // dist/package.json only says the build is ESM; the project's names the package.
      if (pkg.name && pkg.version) return pkg.version;
    } catch {
      // not here: one folder up
    }
    dir = new URL("../", dir);
  }
  return "unknown";
}
