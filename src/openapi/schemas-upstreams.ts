/**
 * Component schemas of upstream MCP servers (docs/contract.md#upstreams; src/upstreams/):
 * registration, the operators' view with pins, changes and rejections, and tenants' own
 * credentials.
 */
import {
  all,
  anyJson,
  bool,
  int,
  nullable,
  object,
  oneOfStrings,
  ref,
  str,
  strings,
  time,
  TRUST,
} from "./schema-builders.ts";

const policyFields = {
  latency_class: oneOfStrings(["instant", "fast", "slow", "long_running"]),
  effects: oneOfStrings(["read", "write", "delete", "send"]),
  idempotent: bool,
  capability_required: {
    ...nullable(str),
    description: "The capability a caller must hold (level 3), as for a native tool (kind:value)",
  },
  max_timeout_ms: { type: "integer", minimum: 1 },
};
const toolPolicy = all(policyFields, ["max_timeout_ms"]);
const partialPolicy = object(policyFields, []);
const policies = {
  type: "object",
  additionalProperties: partialPolicy,
  description: "By the tool's name on the upstream",
};
const onChange = {
  type: "string",
  enum: ["keep", "withhold"],
  description:
    "While a changed definition waits for approval: the approved one keeps serving (keep), or the tool is withheld",
};

export const UpstreamRegistration = object(
  {
    name: {
      type: "string",
      pattern: "^[a-z][a-z0-9-]{0,62}$",
      description: "Its provider name, unique among providers and upstreams",
    },
    binding: {
      ...str,
      description: "A service binding to an MCP Worker (its endpoint is /mcp). Exactly one of binding and url.",
    },
    url: {
      type: "string",
      format: "uri",
      description: "The https URL of its MCP endpoint; public addresses only (the egress guard of http.request)",
    },
    trust: oneOfStrings(TRUST),
    prefix: {
      type: "string",
      pattern: "^[a-z0-9._-]{0,64}$",
      description: "Put before each tool's name in the registry; none when left out",
    },
    tools: {
      ...strings,
      minItems: 1,
      description: 'The allow-list: its tools to serve, by their names there; ["*"] for all',
    },
    defaults: {
      ...partialPolicy,
      description: "What MCP does not say, for every tool; left out: slow, effects send, not idempotent, no capability",
    },
    tool_policies: policies,
    secret: {
      type: "string",
      pattern: "^[A-Z][A-Z0-9_]{0,63}$",
      description: "The NAME of a Worker secret whose value is sent as Authorization: Bearer …; never the value",
    },
    tenant_credentials: {
      ...bool,
      description:
        "Tenants may store their own token for it (PUT /v1/upstreams/{name}/credential); false when left out",
    },
    on_change: onChange,
    version: { ...str, description: "The version its tools are offered under; 1.0.0 when left out" },
  },
  ["name", "trust", "tools"],
);
export const Upstream = all({
  name: str,
  source: {
    type: "string",
    enum: ["config", "admin"],
    description: "UPSTREAMS in deploy configuration, or the admin API",
  },
  binding: nullable(str),
  url: nullable(str),
  trust: oneOfStrings(TRUST),
  prefix: str,
  tools: strings,
  defaults: toolPolicy,
  tool_policies: policies,
  secret: { ...nullable(str), description: "The secret's name (its value is never shown)" },
  tenant_credentials: bool,
  on_change: onChange,
  version: str,
  status: all({
    listed_at: { ...nullable(str), format: "date-time" },
    error: {
      ...nullable(str),
      description: "Why the last listing failed; the last known tools keep serving, marked dead",
    },
    era: {
      type: ["string", "null"],
      enum: ["modern", "legacy", null],
      description: "modern: 2026-07-28; legacy: 2025 (initialize)",
    },
    served: { ...strings, description: "Registry names of the tools served now" },
    withheld: { ...strings, description: "Tools not served because their definition changed (on_change withhold)" },
    not_allowed: { ...int, description: "Listed tools the allow-list leaves out" },
  }),
  pins: {
    type: "array",
    items: all({ tool: str, hash: str, approved_at: time, approved_by: oneOfStrings(["registration", "operator"]) }),
  },
  changes: {
    type: "array",
    description: "Definitions listed since their approval that no operator has approved or rejected yet",
    items: all({
      tool: str,
      registry_name: str,
      approved_hash: str,
      new_hash: { ...str, description: "Approve this hash to serve the new definition" },
      seen_at: time,
      diff: {
        type: "array",
        items: all({
          path: {
            ...str,
            description: "JSON Pointer into the definition (name, description, inputSchema, outputSchema, annotations)",
          },
          before: anyJson,
          after: anyJson,
        }),
      },
      serving: oneOfStrings(["approved", "withheld"]),
    }),
  },
  rejections: {
    type: "array",
    description: "Definitions an operator rejected: a listing never offers these hashes for approval again",
    items: all({
      tool: str,
      hash: str,
      rejected_at: time,
      rejected_by: { ...str, description: "The operator's key, as tenant/agent" },
      reason: nullable(str),
    }),
  },
});
export const UpstreamList = all({ upstreams: { type: "array", items: ref("Upstream") } });
export const UpstreamRemoved = all({ name: str });
export const DefinitionApproval = object({
  hash: { type: "string", pattern: "^[0-9a-f]{64}$", description: "The new_hash of the change that was reviewed" },
});
export const DefinitionRejection = object(
  {
    hash: { type: "string", pattern: "^[0-9a-f]{64}$", description: "The new_hash of the change that was reviewed" },
    reason: { type: "string", maxLength: 1000, description: "Why; kept with the rejection and logged" },
  },
  ["hash"],
);
export const UpstreamCredentialRequest = object({
  token: {
    type: "string",
    minLength: 1,
    maxLength: 4096,
    writeOnly: true,
    description:
      "Sent as Authorization: Bearer … on your tenant's calls to this upstream only; stored encrypted, never answered back",
  },
});
export const UpstreamCredential = all({
  upstream: str,
  stored: bool,
  usable: {
    ...bool,
    description:
      "Whether the stored token is sent on your calls: false once the upstream is registered again at another URL or binding (or the runtime's key changed); store it again",
  },
  updated_at: { ...nullable(str), format: "date-time" },
});
