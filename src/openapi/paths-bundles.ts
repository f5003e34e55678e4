/**
 * The document's paths of tool bundles (docs/contract.md#bundles): operators' named subsets of
 * the registry, served over MCP at `/mcp/{bundle}` (MCP is described by its own protocol, not here).
 */
import { ref } from "./schema-builders.ts";
import { ok, path, requestBody } from "./operation-parts.ts";
import { errors, OPERATOR } from "./error-responses.ts";

export const bundlePaths = {
  "/v1/admin/bundles": {
    get: {
      operationId: "listBundles",
      tags: ["operators"],
      summary: "Tool bundles, by name",
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
};
