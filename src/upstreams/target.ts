/**
 * What a call to an upstream tool needs, carried in the catalog's offering and then in the
 * plan (the run never looks anything up again): where the upstream is, which of its tools,
 * which credential, and how to connect without probing it first.
 */
import type { JsonSchema, Value } from "../../providers/sdk/protocol.ts";

/**
 * The protocol era the registry found at its last listing. A modern (2026-07-28) upstream is
 * connected to with its `server/discover` result and no round trip; a 2025 one needs the
 * `initialize` handshake on every call (stateless servers keep no sessions).
 */
export type UpstreamEra = { kind: "modern"; discover: { [key: string]: Value } } | { kind: "legacy" };

/** Where an upstream's MCP endpoint is: a service binding (path /mcp) or an https URL. */
export interface UpstreamEndpoint {
  binding?: string;
  url?: string;
}

export interface UpstreamTarget extends UpstreamEndpoint {
  /** The upstream's registered name (its provider name). */
  upstream: string;
  /** The tool's name on the upstream (the registry's name may carry a prefix). */
  tool: string;
  /** The NAME of the Worker secret sent as `Authorization`, if any. */
  secret?: string;
  tenant_credentials: boolean;
  era: UpstreamEra;
  /** The approved input schema: the client mirrors its `x-mcp-header` arguments into headers (SEP-2243). */
  input_schema: JsonSchema;
  /** The approved definition declares an output schema: the output is `structuredContent`, else `{content}`. */
  structured: boolean;
  definition_hash: string;
}

/** The path of the MCP endpoint of an upstream reached over a service binding. */
export const BINDING_MCP_PATH = "/mcp";

/** The URL the MCP client posts to: the configured one, or a placeholder host for a binding (the binding ignores the host). */
export function endpointUrl(endpoint: UpstreamEndpoint): string {
  return (
    endpoint.url ?? `https://${endpoint.binding!.toLowerCase().replace(/_/g, "-")}.upstream.invalid${BINDING_MCP_PATH}`
  );
}
