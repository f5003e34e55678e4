/**
 * Writes the metered build's wrangler config (.wrangler-metered.jsonc, git-ignored): the
 * runtime's config as `npm run stack` runs it (wrangler.jsonc plus the lab providers,
 * scripts/dev-config.ts) with `main` pointing at bench/metered/entry.ts, so the benchmark and
 * the simulation measure exactly the product, counted. Returns its path.
 */
import { join } from "node:path";
import { devConfig, writeGenerated } from "../../scripts/dev-config.ts";

/** The metered build's config, beside wrangler.jsonc. */
export const METERED_CONFIG = ".wrangler-metered.jsonc";

export function writeMeteredConfig(root: string): string {
  const product = devConfig(root);
  if (product.main !== "src/index.ts")
    throw new Error("wrangler.jsonc's main is not src/index.ts: update bench/metered/config.ts");
  return writeGenerated(join(root, METERED_CONFIG), "bench/metered/config.ts for the benchmark and the simulation", {
    ...product,
    main: "bench/metered/entry.ts",
  });
}
