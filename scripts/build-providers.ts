/**
 * Bundles each provider Worker, the intent verifier and the example upstream MCP server with
 * wrangler (`deploy --dry-run`) into .build/ under its own folder's path (.build/providers/std/,
 * .build/examples/upstream-mcp/), which the workerd integration tests load as auxiliary Workers
 * (the test plugin takes built scripts for them, not wrangler configs).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const built: string[] = [];

// Every Worker under providers/ and verifiers/; of examples/, only the upstream (the caller is
// no integration test's auxiliary Worker).
const workers = [
  ...["providers", "verifiers"].flatMap((folder) => readdirSync(join(root, folder)).map((name) => `${folder}/${name}`)),
  "examples/upstream-mcp",
];

for (const dir of workers) {
  const config = join(root, dir, "wrangler.jsonc");
  if (!existsSync(config)) continue;
  execFileSync(wrangler, ["deploy", "--dry-run", "--outdir", join(root, ".build", dir), "-c", config], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  built.push(dir);
}
console.log(`worker build: ${built.join(", ")} -> .build/`);
