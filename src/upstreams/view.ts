/**
 * An upstream as the admin API shows it: its registration (a secret by name only),
 * what its last listing found, the approved definitions, each change waiting for an operator
 * with its diff against the approved definition, and the changes operators rejected. Pure.
 */
import type { Trust } from "../contract.ts";
import type { OnChange, ToolPolicy, UpstreamConfig } from "./config.ts";
import { diffDefinitions, type DefinitionChange } from "./definition.ts";
import { registryName } from "./offering.ts";
import type { PendingChange, Pin, Rejection } from "./pinning.ts";

export interface UpstreamChangeView {
  tool: string;
  /** The tool's name in the registry (with the upstream's prefix). */
  registry_name: string;
  approved_hash: string;
  new_hash: string;
  seen_at: string;
  /** Every difference from the approved definition (JSON Pointers into the definition). */
  diff: DefinitionChange[];
  /** Meanwhile: the approved definition serves ("keep"), or the tool is withheld. */
  serving: "approved" | "withheld";
}

export interface UpstreamView {
  name: string;
  source: UpstreamConfig["source"];
  binding: string | null;
  url: string | null;
  trust: Trust;
  prefix: string;
  tools: string[];
  defaults: ToolPolicy;
  tool_policies: Record<string, Partial<ToolPolicy>>;
  secret: string | null;
  tenant_credentials: boolean;
  on_change: OnChange;
  version: string;
  status: {
    listed_at: string | null;
    error: string | null;
    era: "modern" | "legacy" | null;
    /** Registry names of the tools served now. */
    served: string[];
    withheld: string[];
    not_allowed: number;
  };
  pins: { tool: string; hash: string; approved_at: string; approved_by: Pin["approved_by"] }[];
  changes: UpstreamChangeView[];
  /** Definitions an operator rejected: never offered for approval again. */
  rejections: { tool: string; hash: string; rejected_at: string; rejected_by: string; reason: string | null }[];
}

export interface ViewInput {
  upstream: UpstreamConfig;
  status?: { listed_at: number; error?: string; era?: "modern" | "legacy"; withheld: string[]; not_allowed: number };
  served: string[];
  pins: ReadonlyMap<string, Pin>;
  pending: ReadonlyMap<string, PendingChange>;
  rejections: Rejection[];
}

export function upstreamView(v: ViewInput): UpstreamView {
  const u = v.upstream;
  return {
    name: u.name,
    source: u.source,
    binding: u.binding ?? null,
    url: u.url ?? null,
    trust: u.trust,
    prefix: u.prefix,
    tools: u.tools,
    defaults: u.defaults,
    tool_policies: u.tool_policies,
    secret: u.secret ?? null,
    tenant_credentials: u.tenant_credentials,
    on_change: u.on_change,
    version: u.version,
    status: {
      listed_at: v.status ? new Date(v.status.listed_at).toISOString() : null,
      error: v.status?.error ?? null,
      era: v.status?.era ?? null,
      served: [...v.served].sort(),
      withheld: v.status?.withheld ?? [],
      not_allowed: v.status?.not_allowed ?? 0,
    },
    pins: [...v.pins.values()].map((p) => ({
      tool: p.tool,
      hash: p.hash,
      approved_at: new Date(p.approved_at).toISOString(),
      approved_by: p.approved_by,
    })),
    changes: [...v.pending.values()].flatMap((c) => {
      const pin = v.pins.get(c.tool);
      if (!pin) return [];
      return [
        {
          tool: c.tool,
          registry_name: registryName(u, c.tool),
          approved_hash: pin.hash,
          new_hash: c.hash,
          seen_at: new Date(c.seen_at).toISOString(),
          diff: diffDefinitions(pin.definition, c.definition),
          serving: u.on_change === "keep" ? ("approved" as const) : ("withheld" as const),
        },
      ];
    }),
    rejections: v.rejections.map((r) => ({
      tool: r.tool,
      hash: r.hash,
      rejected_at: new Date(r.rejected_at).toISOString(),
      rejected_by: r.rejected_by,
      reason: r.reason,
    })),
  };
}
