/**
 * The document's paths of tool bundles (docs/contract.md#bundles): operators' and tenant admins'
 * named subsets of the registry, served over MCP at `/mcp/{bundle}` (MCP is described by its own
 * protocol, not here).
 */
import { ref } from "./schema-builders.ts";
import { ok, path, query, requestBody } from "./operation-parts.ts";
import { errors, OPERATOR } from "./error-responses.ts";

const TENANT = query(
  "tenant",
  { type: "string" },
  "Operators: the tenant whose bundles (default: the key's own). A tenant admin: its own only, else 403.",
);
const NAME = path("name", "The bundle's name: the path segment of /mcp/{name}.");

export const bundlePaths = {
  "/v1/admin/bundles": {
    get: {
      operationId: "listBundles",
      tags: ["operators"],
      summary: "Operators' tool bundles, by name",
      responses: { "200": ok("the bundles", ref("BundleList")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/bundles/{name}": {
    parameters: [path("name", "The bundle's name: the path segment of /mcp/{name}.")],
    get: {
      operationId: "getBundle",
      tags: ["operators"],
      summary: "One tool bundle",
      responses: { "200": ok("the bundle", ref("Bundle")), ...errors([...OPERATOR, "not_found"]) },
    },
    put: {
      operationId: "putBundle",
      tags: ["operators"],
      summary:
        "Create a tool bundle (201) or replace it whole (200); /mcp/{name} serves it at once on this edge, everywhere within two registry snapshot TTLs",
      requestBody: requestBody(ref("BundleRequest")),
      responses: {
        "200": ok("the bundle, replaced", ref("Bundle")),
        "201": ok("the bundle, created", ref("Bundle")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
    delete: {
      operationId: "deleteBundle",
      tags: ["operators"],
      summary: "Delete a tool bundle; /mcp/{name} answers 404 from then on",
      responses: { "200": ok("deleted", ref("BundleDeleted")), ...errors([...OPERATOR, "not_found"]) },
    },
  },
  "/v1/bundles": {
    get: {
      operationId: "listTenantBundles",
      tags: ["operators"],
      summary: "The tenant's own tool bundles, by name (tenant admins and operators)",
      parameters: [TENANT],
      responses: { "200": ok("the tenant's bundles", ref("BundleList")), ...errors([...OPERATOR, "invalid_request"]) },
    },
  },
  "/v1/bundles/{name}": {
    parameters: [NAME, TENANT],
    get: {
      operationId: "getTenantBundle",
      tags: ["operators"],
      summary: "One of the tenant's own tool bundles (another tenant's answers 404 like an unknown one)",
      responses: { "200": ok("the bundle", ref("Bundle")), ...errors([...OPERATOR, "invalid_request", "not_found"]) },
    },
    put: {
      operationId: "putTenantBundle",
      tags: ["operators"],
      summary:
        "Create one of the tenant's tool bundles (201) or replace it whole (200), at most 20 a tenant; for the tenant's callers, /mcp/{name} serves it in place of an operator's bundle of that name",
      requestBody: requestBody(ref("BundleRequest")),
      responses: {
        "200": ok("the bundle, replaced", ref("Bundle")),
        "201": ok("the bundle, created", ref("Bundle")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
    delete: {
      operationId: "deleteTenantBundle",
      tags: ["operators"],
      summary:
        "Delete one of the tenant's tool bundles; for its callers /mcp/{name} is the operator's bundle of that name again, if any, else 404",
      responses: {
        "200": ok("deleted", ref("BundleDeleted")),
        ...errors([...OPERATOR, "invalid_request", "not_found"]),
      },
    },
  },
};
