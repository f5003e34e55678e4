/**
 * The web console's build: Preact sources in console/src → static files in
 * .build/assets/console/, which wrangler.jsonc's "assets" serves at /console/. Everything the
 * page runs is in that folder (no CDN, nothing fetched at run time).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  publicDir: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../.build/assets/console", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // No source maps in what is served: the sources are in the repository.
    sourcemap: false,
    // One small app: a chunk-size warning would only be noise.
    chunkSizeWarningLimit: 400,
  },
  logLevel: "warn",
});
