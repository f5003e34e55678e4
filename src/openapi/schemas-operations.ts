/**
 * Component schemas of the operational routes: health, readiness (public and the operators'
 * report) and the RFC 9728 metadata of the MCP endpoint.
 */
import { all, bool, int, oneOfStrings, str, strings, time } from "./schema-builders.ts";

export const Health = all({ status: { type: "string", const: "ok" } });
/** RFC 9728 §2, for the MCP endpoint (src/mcp/resource-server.ts). */
export const ProtectedResourceMetadata = all(
  {
    resource: {
      ...str,
      format: "uri",
      description: "This resource's identifier: /mcp's URL (MCP_RESOURCE, or the request's origin + /mcp)",
    },
    authorization_servers: {
      ...strings,
      description: "The configured JWT issuer (JWT_ISSUER), when JWTs are accepted",
    },
    bearer_methods_supported: { type: "array", items: { type: "string", const: "header" } },
    resource_name: str,
  },
  ["authorization_servers"],
);
export const Readiness = all({ status: oneOfStrings(["ready", "not_ready"]) });
export const ReadinessReport = all({
  status: oneOfStrings(["ready", "not_ready"]),
  checked_at: { ...time, description: "When this isolate made the check (answers are at most 2 s old)." },
  registry_version: int,
  tools: int,
  providers: { type: "array", items: all({ name: str, reachable: bool, error: str }, ["error"]) },
  audit_db: all(
    {
      ready: bool,
      reason: {
        ...str,
        description:
          "Why not ready, e.g. the schema is not migrated (run `npx wrangler d1 migrations apply AUDIT_DB --local|--remote`)",
      },
    },
    ["reason"],
  ),
  problems: strings,
});
