/**
 * The document's paths of OAuth grants (docs/oauth.md#grants): a tenant's admin sees and revokes
 * what people of the tenant granted to MCP clients. The authorization server's own endpoints
 * (/oauth/…, /.well-known/oauth-authorization-server) follow OAuth's RFCs, not this document.
 */
import { ref } from "./schema-builders.ts";
import { ok, path, query } from "./operation-parts.ts";
import { errors, OPERATOR } from "./error-responses.ts";

const TENANT = query(
  "tenant",
  { type: "string" },
  "Operators: the tenant whose grants (default: the key's own). A tenant admin: its own only, else 403.",
);

export const oauthPaths = {
  "/v1/oauth/grants": {
    get: {
      operationId: "listOAuthGrants",
      tags: ["operators"],
      summary: "The tenant's OAuth grants to MCP clients, in storage order, paged (tenant admins and operators)",
      parameters: [
        TENANT,
        query("limit", { type: "integer", minimum: 1, maximum: 1000 }, "At most this many (default 100)."),
        query("cursor", { type: "string" }, "The previous page's next_cursor."),
      ],
      responses: { "200": ok("a page of grants", ref("OAuthGrantList")), ...errors([...OPERATOR, "invalid_request"]) },
    },
  },
  "/v1/oauth/grants/{id}": {
    delete: {
      operationId: "revokeOAuthGrant",
      tags: ["operators"],
      summary:
        "Revoke a grant and every access and refresh token of it, at once (another tenant's grant answers 404 like an unknown one)",
      parameters: [path("id", "The grant's id."), TENANT],
      responses: { "200": ok("the revoked grant", ref("RevokedOAuthGrant")), ...errors([...OPERATOR, "not_found"]) },
    },
  },
};
