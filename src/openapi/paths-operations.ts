/**
 * The document's paths of the operational routes: this document, the MCP endpoint's RFC 9728
 * metadata, health, readiness and metrics.
 */
import { ref } from "./schema-builders.ts";
import { header, JSON_TYPE, ok, PUBLIC } from "./operation-parts.ts";
import { ALWAYS, errors, OPERATOR } from "./error-responses.ts";

export const operationPaths = {
  "/v1/openapi.json": {
    get: {
      operationId: "getOpenApiDocument",
      tags: ["operations"],
      summary: "This document",
      security: PUBLIC,
      responses: {
        "200": {
          description: "OpenAPI 3.1",
          content: { [JSON_TYPE]: { schema: { type: "object", additionalProperties: true } } },
        },
        ...errors(ALWAYS),
      },
    },
  },
  "/.well-known/oauth-protected-resource": {
    get: {
      operationId: "getProtectedResourceMetadata",
      tags: ["operations"],
      summary: "RFC 9728 metadata of the MCP endpoint (/mcp)",
      description:
        "How an MCP client finds out which authorization server issues tokens for /mcp. The same document as the /mcp-suffixed form.",
      security: PUBLIC,
      responses: {
        "200": {
          description: "RFC 9728 metadata",
          content: { [JSON_TYPE]: { schema: ref("ProtectedResourceMetadata") } },
        },
        ...errors(ALWAYS),
      },
    },
  },
  "/.well-known/oauth-protected-resource/mcp": {
    get: {
      operationId: "getMcpProtectedResourceMetadata",
      tags: ["operations"],
      summary: "RFC 9728 metadata of /mcp, at the path-suffixed location (RFC 9728 §3.1)",
      description: "Named by the `resource_metadata` parameter of /mcp's 401 challenge.",
      security: PUBLIC,
      responses: {
        "200": {
          description: "RFC 9728 metadata",
          content: { [JSON_TYPE]: { schema: ref("ProtectedResourceMetadata") } },
        },
        ...errors(ALWAYS),
      },
    },
  },
  "/healthz": {
    get: {
      operationId: "getHealth",
      tags: ["operations"],
      summary: "The Worker answers",
      security: PUBLIC,
      responses: { "200": ok("alive", ref("Health")), ...errors(ALWAYS) },
    },
  },
  "/readyz": {
    get: {
      operationId: "getReadiness",
      tags: ["operations"],
      summary:
        "The registry is loaded, every provider answers and the audit database is migrated (status only; the details are for operators: GET /v1/admin/readiness)",
      security: PUBLIC,
      responses: {
        "200": ok("ready (a check at most 2 s old)", ref("Readiness")),
        "503": ok("not ready", ref("Readiness"), { "Retry-After": header("RetryAfter") }),
        ...errors(ALWAYS),
      },
    },
  },
  "/metrics": {
    get: {
      operationId: "getMetrics",
      tags: ["operations"],
      summary: "Prometheus text format (operators)",
      responses: {
        "200": { description: "exposition format 0.0.4", content: { "text/plain": { schema: { type: "string" } } } },
        ...errors(OPERATOR),
      },
    },
  },
};
