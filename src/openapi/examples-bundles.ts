/** Examples of tool bundles (src/openapi/paths-bundles.ts), an operator's or a tenant's: one for a research agent. */
import { AT, type OperationExamples, v } from "./examples-shared.ts";

const request = {
  description: "What a research agent needs: the maths and text tools, and the docs upstream's",
  tools: ["math.evaluate", "json.query"],
  prefixes: ["text."],
  channels: ["docs-search"],
  tags: ["maths"],
  discovery: "search",
};
const bundle = {
  name: "research",
  description: request.description,
  tools: ["json.query", "math.evaluate"],
  prefixes: ["text."],
  channels: ["docs-search"],
  tags: ["maths"],
  discovery: "search",
  updated_at: AT,
};

export const bundleExamples: Record<string, OperationExamples> = {
  listBundles: { responses: { "200": v({ bundles: [bundle] }) } },
  getBundle: { responses: { "200": v(bundle) } },
  putBundle: { request: v(request), responses: { "201": v(bundle), "200": v(bundle) } },
  deleteBundle: { responses: { "200": v({ name: "research", deleted: true }) } },
  listTenantBundles: { responses: { "200": v({ bundles: [bundle] }) } },
  getTenantBundle: { responses: { "200": v(bundle) } },
  putTenantBundle: { request: v(request), responses: { "201": v(bundle), "200": v(bundle) } },
  deleteTenantBundle: { responses: { "200": v({ name: "research", deleted: true }) } },
};
