/**
 * Bundles each provider Worker, the intent verifier and the example upstream MCP server with
 * wrangler (`deploy --dry-run`) into .build/<folder>/<name>/, which the workerd integration
 * tests load as auxiliary Workers (the test plugin takes built scripts for them, not wrangler
 * configs).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const built: string[] = [];

for (const folder of ["providers", "verifiers", "upstreams"]) {
  for (const name of readdirSync(join(root, folder))) {
    const config = join(root, folder, name, "wrangler.jsonc");
    if (!existsSync(config)) continue;
    execFileSync(wrangler, ["deploy", "--dry-run", "--outdir", join(root, ".build", folder, name), "-c", config], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    });
    built.push(`${folder}/${name}`);
  }
}
console.log(`worker build: ${built.join(", ")} -> .build/`);
