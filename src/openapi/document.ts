/**
 * The OpenAPI 3.1 description of the HTTP face, served at `/v1/openapi.json`: `/v1`, the
 * operations endpoints (docs/contract.md#routes) and the operators' routes. The Connect/gRPC-Web face is
 * described by its own contract (proto/tool_runtime/v1/runtime.proto).
 *
 * Derived, not copied: each error status, its codes and its description come from the error
 * table (src/errors.ts, through src/openapi/error-responses.ts); each operation names the codes
 * it can answer and their statuses follow. The paths are in the `paths-*.ts` files beside this
 * one, by route group; the body schemas in src/openapi/schemas.ts; an example of each
 * operation's request and answer in the `examples-*.ts` files. Three checks keep it true:
 * Redocly's recommended rules (test/unit/openapi-lint.test.ts), the project's types against
 * the types openapi-typescript generates from it (`npm run typecheck`), and every response
 * the e2e suite receives against the document the running server serves (test/e2e/conformance.ts).
 *
 * src/app.ts imports this module on the first request for the document, never at start-up
 * (docs/decisions/39-lazy-faces.md).
 */
import { errorResponses } from "./error-responses.ts";
import { headers } from "./operation-parts.ts";
import { adminPaths, drillPaths } from "./paths-admin.ts";
import { callerPaths } from "./paths-callers.ts";
import { operationPaths } from "./paths-operations.ts";
import { upstreamPaths } from "./paths-upstreams.ts";
import { bundlePaths } from "./paths-bundles.ts";
import { oauthPaths } from "./paths-oauth.ts";
import { schemas } from "./schemas.ts";
import { withExamples } from "./with-examples.ts";

// In the document's order. Every operation's `errors()` has run once these modules are
// evaluated, so `errorResponses()` below lists every status they answer.
const paths = withExamples({
  ...callerPaths,
  ...operationPaths,
  ...adminPaths,
  ...upstreamPaths,
  ...bundlePaths,
  ...oauthPaths,
  ...drillPaths,
});

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Tool Runtime",
    version: "1.0.0",
    description:
      "Invoke tools by name, synchronously, asynchronously or as a stream of events, with cancellation. Every JSON answer is also available as MessagePack (`Accept: application/msgpack`). A path listed here asked with a method it does not list answers 405 `method_not_allowed` (an ErrorEnvelope) with an `Allow` header naming the methods it does answer (HEAD wherever GET is). The Connect/gRPC-Web face is described by proto/tool_runtime/v1/runtime.proto. " +
      "Roles inside a tenant: `agent` (the default; `tenant` is its old name) calls tools in its channels and reads, streams and cancels its own executions only — another agent's execution answers 404 `execution_not_found` like an unknown one; `tenant_admin` also sees and cancels every execution of its tenant, reads its audit records, keeps its upstream tokens and tool bundles and manages its keys (never an operator's); `approver` also decides its tenant's pending approvals, never its own call unless the tenant's APPROVALS rule sets `self_approval`; `admin` is an operator. A role that may not use an operation answers 403 `forbidden` with `details.reason`.",
    // The package is private and grants no licence (package.json has none).
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
  servers: [{ url: "/", description: "The origin that serves this document." }],
  tags: [
    { name: "executions", description: "Invoke tools and follow, read and cancel their executions." },
    { name: "approvals", description: "A person's approval of calls the tenant's policy holds (approver role)." },
    { name: "tools", description: "The registry's view of tools, versions and providers." },
    { name: "operations", description: "Health, readiness, metrics and this document." },
    {
      name: "operators",
      description:
        "Operators (admin role): registry, upstreams, tool bundles, drills; the audit log, usage and API keys also for a tenant's admins, within their tenant.",
    },
  ],
  security: [{ bearer: [] }],
  components: {
    schemas,
    responses: errorResponses(),
    headers,
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description:
          "An API key (trt_…) or a JWT from the configured issuer. (Access tokens of the runtime's own OAuth server are for /mcp only: docs/oauth.md.)",
      },
    },
  },
  paths,
} as const;
