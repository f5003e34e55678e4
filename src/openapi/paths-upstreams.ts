/**
 * The document's paths of upstream MCP servers: the operators' registration, listing and
 * review of changed definitions, and a tenant's own credential for an upstream.
 */
import { ref } from "./schema-builders.ts";
import { ok, path, requestBody } from "./operation-parts.ts";
import { CALLER, errors, OPERATOR } from "./error-responses.ts";

export const upstreamPaths = {
  "/v1/admin/upstreams": {
    get: {
      operationId: "listUpstreams",
      tags: ["operators"],
      summary: "Upstream MCP servers: registration, last listing, approved definitions, changes waiting for approval",
      responses: { "200": ok("the upstreams", ref("UpstreamList")), ...errors(OPERATOR) },
    },
    post: {
      operationId: "registerUpstream",
      tags: ["operators"],
      summary: "Register an upstream MCP server; its allowed tools are listed and served at once",
      requestBody: requestBody(ref("UpstreamRegistration")),
      responses: {
        "201": ok("the upstream, listed", ref("Upstream")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
  "/v1/admin/upstreams/{name}": {
    parameters: [path("name", "The upstream's name.")],
    get: {
      operationId: "getUpstream",
      tags: ["operators"],
      summary: "One upstream, with each changed definition's diff",
      responses: { "200": ok("the upstream", ref("Upstream")), ...errors([...OPERATOR, "not_found"]) },
    },
    delete: {
      operationId: "removeUpstream",
      tags: ["operators"],
      summary: "Remove an upstream registered through this API (one from UPSTREAMS is removed there)",
      responses: {
        "200": ok("removed", ref("UpstreamRemoved")),
        ...errors([...OPERATOR, "invalid_request", "not_found"]),
      },
    },
  },
  "/v1/admin/upstreams/{name}/refresh": {
    post: {
      operationId: "refreshUpstream",
      tags: ["operators"],
      summary: "List the upstream's tools now",
      parameters: [path("name", "The upstream's name.")],
      responses: { "200": ok("the upstream, listed", ref("Upstream")), ...errors([...OPERATOR, "not_found"]) },
    },
  },
  "/v1/admin/upstreams/{name}/tools/{tool}/approve": {
    post: {
      operationId: "approveUpstreamChange",
      tags: ["operators"],
      summary: "Approve a changed tool definition by the hash that was reviewed; it serves at once",
      parameters: [path("name", "The upstream's name."), path("tool", "The tool's name on the upstream.")],
      requestBody: requestBody(ref("DefinitionApproval")),
      responses: {
        "200": ok("the upstream", ref("Upstream")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type", "not_found"]),
      },
    },
  },
  "/v1/admin/upstreams/{name}/tools/{tool}/reject": {
    post: {
      operationId: "rejectUpstreamChange",
      tags: ["operators"],
      summary:
        "Reject a changed tool definition by the hash that was reviewed; what served before serves on, and that hash is not raised again",
      parameters: [path("name", "The upstream's name."), path("tool", "The tool's name on the upstream.")],
      requestBody: requestBody(ref("DefinitionRejection")),
      responses: {
        "200": ok("the upstream", ref("Upstream")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type", "not_found"]),
      },
    },
  },
  "/v1/upstreams/{name}/credential": {
    parameters: [path("name", "An upstream that takes tenants' own tokens.")],
    get: {
      operationId: "getUpstreamCredential",
      tags: ["tools"],
      summary: "Whether your tenant stored a token for this upstream (never the token)",
      responses: {
        "200": ok("the credential's state", ref("UpstreamCredential")),
        ...errors([...CALLER, "not_found"]),
      },
    },
    put: {
      operationId: "putUpstreamCredential",
      tags: ["tools"],
      summary:
        "Store your tenant's own token for this upstream, encrypted; used for your tenant's calls to it only (tenant_admin or operator; others 403 `forbidden`)",
      requestBody: requestBody(ref("UpstreamCredentialRequest")),
      responses: {
        "200": ok("stored", ref("UpstreamCredential")),
        ...errors([
          ...CALLER,
          "invalid_request",
          "payload_too_large",
          "unsupported_media_type",
          "forbidden",
          "not_found",
        ]),
      },
    },
    delete: {
      operationId: "deleteUpstreamCredential",
      tags: ["tools"],
      summary:
        "Forget your tenant's token for this upstream (its own credential serves your calls again; tenant_admin or operator, others 403 `forbidden`)",
      responses: {
        "200": ok("forgotten", ref("UpstreamCredential")),
        ...errors([...CALLER, "forbidden", "not_found"]),
      },
    },
  },
};
