/**
 * Writes the API reference page (/docs/) into .build/assets/docs/: index.html, rendered from
 * the OpenAPI document that /v1/openapi.json serves (scripts/docs/render-reference.ts), and its
 * stylesheet. Static assets like the console (wrangler.jsonc "assets"), so the Worker never
 * builds the page. Run by `npm start`, `npm test` and `npm run deploy` before wrangler.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../src/openapi/document.ts";
import { renderReference } from "./docs/render-reference.ts";
import { writeIfChanged } from "./write-if-changed.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const DOCS_DIR = join(here, "..", ".build", "assets", "docs");

export function buildDocs(outDir = DOCS_DIR): string {
  // Unchanged files are left alone: a running wrangler dev reloads on any write to its assets.
  const page = join(outDir, "index.html");
  writeIfChanged(page, renderReference(JSON.parse(JSON.stringify(openApiDocument))));
  writeIfChanged(join(outDir, "style.css"), readFileSync(join(here, "docs", "reference.css")));
  return page;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildDocs();
  console.log("docs -> .build/assets/docs/");
}
