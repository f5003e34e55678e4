/**
 * Holds every JSON response the e2e suite receives through `call()` to the OpenAPI document
 * the runtime serves (src/openapi.ts): an undocumented status or a body that does not match
 * its schema fails the test that received it. Operators' `/v1/admin/*` routes are outside
 * the public document and are not checked.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { openApiDocument } from "../../src/openapi.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(openApiDocument as object, "openapi.json");

const templates = Object.keys(openApiDocument.paths).map((t) => ({
  template: t,
  re: new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export function conform(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const path = new URL(url, "http://x").pathname;
  if (!path.startsWith("/v1/") || path.startsWith("/v1/admin/")) return;
  if (!contentType?.includes("application/json")) return;
  const match = templates.find((t) => t.re.test(path));
  if (!match) throw new Error(`OpenAPI: no path describes ${method} ${path}`);
  const operation = (openApiDocument.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[match.template][method.toLowerCase()];
  if (!operation) throw new Error(`OpenAPI: ${method} ${match.template} is not described`);
  if (!operation.responses[String(status)]) throw new Error(`OpenAPI: ${method} ${match.template} does not document status ${status}`);
  const ref = `openapi.json#/paths/${pointer(match.template)}/${method.toLowerCase()}/responses/${status}/content/${pointer("application/json")}/schema`;
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`OpenAPI: no schema at ${ref}`);
  if (!validate(body)) {
    throw new Error(`OpenAPI: ${method} ${path} → ${status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  }
}
