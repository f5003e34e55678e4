/**
 * An upstream tool as the registry offers it: a manifest entry like a native tool's (so
 * lookup, ranking, capability checks, schema validation, budgets and the faces need nothing
 * new) plus the target a call goes to. Everything policy needs comes from the operator's
 * registration; the upstream contributes its name, description and schemas (approved ones).
 * Its `annotations` are kept in the definition's hash but decide nothing. Pure.
 */
import type { JsonSchema, ToolManifestEntry } from "../../providers/sdk/protocol.ts";
import { policyFor, type UpstreamConfig } from "./config.ts";
import { CREDENTIAL_REFUSED, TENANT_CALL_REFUSED } from "./upstream-failure.ts";
import type { Listed } from "./pinning.ts";
import type { UpstreamEra, UpstreamTarget } from "./target.ts";

/** The output of a tool that declares no output schema: MCP's content blocks, as they came. */
export const CONTENT_OUTPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    content: { type: "array", items: { type: "object", properties: { type: { type: "string" } }, required: ["type"] } },
  },
  required: ["content"],
};

export function registryName(upstream: Pick<UpstreamConfig, "prefix">, tool: string): string {
  return `${upstream.prefix}${tool}`;
}

export function upstreamOffering(
  upstream: UpstreamConfig,
  era: UpstreamEra,
  served: Listed,
): { entry: ToolManifestEntry; target: UpstreamTarget } {
  const { definition, hash } = served;
  const policy = policyFor(upstream, definition.name);
  const entry: ToolManifestEntry = {
    name: registryName(upstream, definition.name),
    version: upstream.version,
    description: definition.description ?? "",
    input_schema: definition.inputSchema,
    output_schema: definition.outputSchema ?? CONTENT_OUTPUT_SCHEMA,
    capability_required: policy.capability_required,
    idempotent: policy.idempotent,
    latency_class: policy.latency_class,
    effects: policy.effects,
    coercion: "strict",
    ...(policy.max_timeout_ms !== undefined ? { max_timeout_ms: policy.max_timeout_ms } : {}),
    partial_merge: "replace",
    error_codes: upstream.tenant_credentials
      ? [
          { code: CREDENTIAL_REFUSED, description: "The upstream refused the token your tenant stored for it." },
          {
            code: TENANT_CALL_REFUSED,
            description:
              "The upstream answered a call made with your tenant's token with an HTTP error (details.http_status).",
          },
        ]
      : [],
  };
  const target: UpstreamTarget = {
    upstream: upstream.name,
    tool: definition.name,
    ...(upstream.binding !== undefined ? { binding: upstream.binding } : { url: upstream.url }),
    ...(upstream.secret !== undefined ? { secret: upstream.secret } : {}),
    tenant_credentials: upstream.tenant_credentials,
    era,
    input_schema: definition.inputSchema,
    structured: definition.outputSchema !== null,
    definition_hash: hash,
  };
  return { entry, target };
}
