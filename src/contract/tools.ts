/** The catalog as callers see it: tools, their versions and offerings (docs/contract.md#ranking), and what a dry run reports. */
import type {
  CoercionMode,
  Effect,
  JsonSchema,
  LatencyClass,
  PartialMerge,
  ToolErrorCode,
} from "../../providers/sdk/protocol.ts";
import type { Violation } from "./errors.ts";
import type { CapabilityDecision } from "./execution-view.ts";

/** GET /v1/tools/{name}: one provider's offer of one version. */
export interface ToolOfferingView {
  provider: string;
  trust: Trust;
  /** docs/contract.md#ranking inputs from real executions; null until there are any. */
  p50_ms: number | null;
  error_rate: number | null;
  samples: number;
  /** docs/contract.md#circuit-breakers. */
  breaker: "closed" | "open" | "half_open";
  /** false once a call found its Worker missing or failing before the handler ran. */
  alive: boolean;
  disabled: boolean;
  capability_required: string | null;
  idempotent: boolean;
  latency_class: LatencyClass;
  effects: Effect;
  coercion: CoercionMode;
  /** How its `partial` events make the partial output (docs/contract.md#partial-output). */
  partial_merge: PartialMerge;
  /** The tool's own error codes (`details.tool_code` of a `tool_error`; docs/contract.md#errors). */
  error_codes: ToolErrorCode[];
  /** What the tool is about, as this provider's manifest says (none for an upstream's tool; docs/contract.md#bundles). */
  tags: string[];
  input_schema: JsonSchema;
  output_schema: JsonSchema;
}

export interface ToolVersionView {
  version: string;
  active: boolean;
  description: string;
  deprecation: { sunset: string; replacement: string | null; deprecated_at: string } | null;
  providers: ToolOfferingView[];
}

export interface ToolView {
  name: string;
  active_version: string;
  description: string;
  versions: ToolVersionView[];
}

/** docs/contract.md#ranking: system > verified > community. */
export type Trust = "system" | "verified" | "community";
export const TRUST_ORDER: readonly Trust[] = ["system", "verified", "community"];

/** A deprecated version: its sunset and replacement (RFC 9745, RFC 8594). */
export interface DeprecationNotice {
  /** ISO 8601; from then on calls fail with tool_deprecated. */
  sunset: string;
  replacement: string | null;
  /** ISO 8601: when the operator deprecated it (the Deprecation header, RFC 9745). */
  deprecated_at: string;
}

/** What `mode: "dry_run"` answers: stages 1-4 run, nothing is executed or created. */
export interface DryRunReport {
  mode: "dry_run";
  tool: string;
  version: string;
  /** The provider that would serve (the first ranked with room, or the one it would wait for), or null when none could. */
  provider: string | null;
  ranking: {
    place: number;
    provider: string;
    trust: string;
    p50_ms: number | null;
    error_rate: number | null;
    breaker: string;
    reason: string;
    /** The provider's max_concurrency (null: no limit), its calls in flight now, and whether it has room. */
    max_concurrency: number | null;
    in_flight: number | null;
    room: boolean;
  }[];
  /** true when every ranked provider is full: the call would wait in `scheduled` for `provider`. */
  waits_for_capacity: boolean;
  /** The tenant's approval rule that would hold the call for a person, or null. */
  approval: { rule: string; window_ms: number } | null;
  excluded: { provider: string; reason: string; retry_at: string | null }[];
  capability: {
    allowed: boolean;
    decision?: CapabilityDecision;
    denial?: { level: unknown; reason: string; required?: unknown };
  };
  schema: { valid: boolean; violations: Violation[] };
  deprecation: DeprecationNotice | null;
}
