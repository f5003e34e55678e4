/**
 * Component schemas of the registry's view: tools, their versions and offerings, and a
 * version's deprecation (GET /v1/tools, the operators' deprecation routes).
 */
import { TOOL_TAG, TOOL_TAGS_MAX } from "../../providers/sdk/protocol.ts";
import {
  all,
  bool,
  BREAKER,
  int,
  nullable,
  num,
  object,
  oneOfStrings,
  ref,
  str,
  strings,
  time,
  TRUST,
} from "./schema-builders.ts";

/** A tool's tag. */
export const TAG = { type: "string", pattern: TOOL_TAG.source };

export const deprecation = all({ sunset: time, replacement: nullable(str), deprecated_at: time });

export const ToolList = all({
  registry_version: int,
  tools: {
    type: "array",
    items: all({
      name: str,
      active_version: str,
      description: str,
      versions: strings,
      providers: { ...strings, description: "best first" },
      tags: {
        type: "array",
        items: TAG,
        description: "The tags of every offering the caller sees, in any version, sorted",
      },
    }),
  },
});
export const ToolView = all({
  name: str,
  active_version: str,
  description: str,
  versions: {
    type: "array",
    items: all({
      version: str,
      active: bool,
      description: str,
      deprecation: { oneOf: [deprecation, { type: "null" }] },
      providers: { type: "array", items: ref("ToolOffering") },
    }),
  },
});
export const ToolOffering = all({
  provider: str,
  trust: oneOfStrings(TRUST),
  p50_ms: nullable(num),
  error_rate: nullable(num),
  samples: int,
  breaker: oneOfStrings(BREAKER),
  alive: bool,
  disabled: bool,
  capability_required: nullable(str),
  idempotent: bool,
  latency_class: oneOfStrings(["instant", "fast", "slow", "long_running"]),
  effects: oneOfStrings(["read", "write", "delete", "send"]),
  coercion: oneOfStrings(["strict", "lenient"]),
  partial_merge: {
    ...oneOfStrings(["replace", "append"]),
    description: "How its partial events make the partial output.",
  },
  error_codes: {
    type: "array",
    items: all({ code: str, description: str }),
    description: "The tool's own error codes (details.tool_code of a tool_error).",
  },
  tags: {
    type: "array",
    maxItems: TOOL_TAGS_MAX,
    items: TAG,
    description: "What the tool is about, as this provider's manifest says; none for an upstream's tool.",
  },
  input_schema: { type: ["object", "boolean"], additionalProperties: true },
  output_schema: { type: ["object", "boolean"], additionalProperties: true },
});
export const DeprecationRequest = object(
  {
    sunset: time,
    replacement: {
      ...nullable(str),
      description: "name or name@version of a tool the registry has (else 400 invalid_request)",
    },
  },
  ["sunset"],
);
export const DeprecationState = all({
  tool: str,
  version: str,
  deprecation: { oneOf: [deprecation, { type: "null" }] },
  active_version: str,
});
