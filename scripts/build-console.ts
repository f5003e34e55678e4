/**
 * Builds the web console (console/, vite) into .build/assets/console/ and writes the assets'
 * `_headers` (Workers static assets read it): a Content-Security-Policy that lets the page
 * load only its own files and talk only to its own origin. Run by `npm start`, `npm test`
 * and `npm run deploy` before wrangler.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { syncFolder, writeIfChanged } from "./write-if-changed.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Built beside the assets folder, then copied in file by file where it differs: a running
// wrangler dev reloads on every write under the assets folder (scripts/write-if-changed.ts).
const staging = join(root, ".build", "console-staging");
await build({ configFile: join(root, "console", "vite.config.ts"), build: { outDir: staging, emptyOutDir: true } });
syncFolder(staging, join(root, ".build", "assets", "console"));
rmSync(staging, { recursive: true, force: true });

const csp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");
writeIfChanged(
  join(root, ".build", "assets", "_headers"),
  `/console/*\n  Content-Security-Policy: ${csp}\n  X-Content-Type-Options: nosniff\n  Referrer-Policy: no-referrer\n`,
);
console.log("console -> .build/assets/console/");
