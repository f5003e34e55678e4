/**
 * Writes the OpenAPI document (src/openapi/document.ts, exactly what `/v1/openapi.json` serves) and the
 * TypeScript types openapi-typescript generates from it into `.build/openapi/` (git-ignored).
 * `npm run typecheck` holds the project's types to the generated ones (test/openapi/contract.ts);
 * after the tests, real responses are held to them (scripts/check-openapi-samples.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { openApiDocument } from "../src/openapi/document.ts";

export const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", ".build", "openapi");

export async function buildOpenApi(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, "openapi.json"), `${JSON.stringify(openApiDocument, null, 2)}\n`);
  const ast = await openapiTS(structuredClone(openApiDocument) as unknown as Parameters<typeof openapiTS>[0]);
  writeFileSync(join(OUT_DIR, "schema.d.ts"), astToString(ast));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildOpenApi();
  console.log(
    `openapi: ${Object.keys(openApiDocument.paths).length} paths -> .build/openapi/{openapi.json,schema.d.ts}`,
  );
}
