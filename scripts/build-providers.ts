/**
 * Bundles each provider Worker with wrangler (`deploy --dry-run`) into .build/providers/<name>/,
 * which the workerd integration tests load as auxiliary Workers (the test plugin takes built
 * scripts for them, not wrangler configs).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const providers = readdirSync(join(root, "providers")).filter((p) => existsSync(join(root, "providers", p, "wrangler.toml")));
const wrangler = join(root, "node_modules", ".bin", "wrangler");

for (const name of providers) {
  execFileSync(
    wrangler,
    ["deploy", "--dry-run", "--outdir", join(root, ".build", "providers", name), "-c", join(root, "providers", name, "wrangler.toml")],
    { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } },
  );
}
console.log(`provider build: ${providers.join(", ")} -> .build/providers/`);
