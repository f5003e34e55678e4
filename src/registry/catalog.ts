/**
 * The catalog: every tool, version and provider offering, built from the providers' live
 * manifests (docs/contract.md#resolution). Pure, so the registry object and the tests build it the same way.
 */
import { tagsProblem, type ProviderManifest, type ToolManifestEntry } from "../../providers/sdk/protocol.ts";
import type { ProviderConfig } from "../config.ts";
import type { DeprecationNotice, Trust } from "../contract.ts";
import { schemaHash } from "../schema/schema-hash.ts";
import { runtimeValidator } from "../schema/runtime-validator.ts";
import type { UpstreamTarget } from "../upstreams/target.ts";
import type { BreakerPolicy, BreakerRecord, HealthStats } from "./provider-health.ts";
import { activeVersion } from "./semver.ts";
import type { Bundle } from "./bundle-shape.ts";

/** One provider's offer of one tool version. */
export interface Offering {
  provider: string;
  binding: string;
  trust: Trust;
  /** Registration order: earlier wins the last tie (docs/contract.md#ranking criterion 5). */
  seq: number;
  manifest: ToolManifestEntry;
  input_hash: string;
  output_hash: string;
  /** An upstream MCP server's tool (docs/contract.md#upstreams): how to call it. Its schemas are validated at run time. */
  upstream?: UpstreamTarget;
}

export interface CatalogTool {
  name: string;
  active_version: string;
  versions: Record<string, Offering[]>;
}

export interface ProviderState {
  name: string;
  binding: string;
  trust: Trust;
  seq: number;
  /** Its manifest answered at the last load. */
  reachable: boolean;
  tools: number;
  error?: string;
  /** Set by an operator: never chosen while true. */
  disabled?: boolean;
  /** docs/contract.md#liveness: marked on its first failed call, skipped until it answers again. */
  dead?: { since: number; reason: string };
  /** An upstream MCP server rather than a provider Worker (src/upstreams/). */
  kind?: "upstream";
  /** The most calls it takes at once (its manifest's, or an operator's override); absent: no limit (docs/contract.md#waiting). */
  max_concurrency?: number;
}

/** Live statistics and breaker of one provider's offer of one tool (all its versions). */
export interface OfferingHealth extends HealthStats {
  breaker: BreakerRecord;
  policy: BreakerPolicy;
}

export type { DeprecationNotice };

export function healthKey(provider: string, tool: string): string {
  return `${provider}/${tool}`;
}

/** What the edge caches: immutable, versioned. */
export interface RegistrySnapshot {
  version: number;
  built_at: number;
  providers: ProviderState[];
  tools: Record<string, CatalogTool>;
  /** Offerings left out, and why (unbuilt schemas, conflicts); /readyz shows them. */
  problems: string[];
  /** By `healthKey(provider, tool)`; absent until the first call is reported. */
  health: Record<string, OfferingHealth>;
  /** By provider: the `seq` of the health view this snapshot holds (src/registry/health-view.ts). */
  health_seq?: Record<string, number>;
  /** By `tool@version`. */
  deprecations: Record<string, DeprecationNotice>;
  /** Operators' tool bundles by name (docs/contract.md#bundles); absent in a copy from a build before bundles. */
  bundles?: Record<string, Bundle>;
  /**
   * Tenant admins' tool bundles, by tenant, then by name: a tenant's are resolved for its own
   * callers only (src/registry/bundles.ts); absent in a copy from a build before them.
   */
  tenant_bundles?: Record<string, Record<string, Bundle>>;
}

export interface ProviderLoad {
  config: ProviderConfig;
  seq: number;
  manifest?: ProviderManifest;
  error?: string;
  /** An upstream MCP server's load: each served tool's call target, by the registry's tool name. */
  upstream?: { targets: Record<string, UpstreamTarget> };
}

export async function buildCatalog(
  loads: ProviderLoad[],
  hasValidator: (hash: string) => boolean,
): Promise<Pick<RegistrySnapshot, "providers" | "tools" | "problems">> {
  const problems: string[] = [];
  const byName = new Map<string, Record<string, Offering[]>>();
  const providers: ProviderState[] = [];

  for (const load of [...loads].sort((a, b) => a.seq - b.seq)) {
    const { config } = load;
    let accepted = 0;
    for (const entry of load.manifest?.tools ?? []) {
      const where = `${config.name}: ${entry.name}@${entry.version}`;
      // The SDK refuses bad tags at build; a manifest made otherwise is refused here, whole offering.
      const badTags = tagsProblem(entry.tags);
      if (badTags) {
        problems.push(`${where} left out: ${badTags}`);
        continue;
      }
      const input_hash = await schemaHash(entry.input_schema);
      const output_hash = await schemaHash(entry.output_schema);
      const target = load.upstream?.targets[entry.name];
      if (load.upstream) {
        // Known only at run time (docs/contract.md#validation): interpreted without code generation, and
        // served only if they can be (an unknown draft or a broken $ref cannot).
        const unusable =
          unusableSchema(input_hash, entry.input_schema) ?? unusableSchema(output_hash, entry.output_schema);
        if (!target || unusable) {
          problems.push(
            `${where} left out: ${unusable ? `its schema cannot be used (${unusable})` : "no call target"}`,
          );
          continue;
        }
      } else if (!hasValidator(input_hash) || !hasValidator(output_hash)) {
        // The runtime never compiles a schema (Workers refuse code generation): an offering whose schemas were not
        // prebuilt cannot be validated, so it is not served.
        problems.push(`${where} left out: its schemas differ from the build; run the schema build and redeploy`);
        continue;
      }
      const versions = byName.get(entry.name) ?? {};
      const offerings = (versions[entry.version] ??= []);
      if (offerings.some((o) => o.provider === config.name)) {
        problems.push(`${where} declared twice; the first is kept`);
        continue;
      }
      offerings.push({
        provider: config.name,
        binding: config.binding,
        trust: config.trust,
        seq: load.seq,
        manifest: entry,
        input_hash,
        output_hash,
        ...(target ? { upstream: target } : {}),
      });
      byName.set(entry.name, versions);
      accepted++;
    }
    const limit = load.manifest?.max_concurrency;
    const limited = limit !== undefined && Number.isSafeInteger(limit) && limit > 0;
    if (limit !== undefined && !limited)
      problems.push(
        `${config.name}: max_concurrency ${JSON.stringify(limit)} is not a positive integer; no limit is applied`,
      );
    providers.push({
      name: config.name,
      binding: config.binding,
      trust: config.trust,
      seq: load.seq,
      reachable: load.manifest !== undefined && load.error === undefined,
      tools: accepted,
      ...(load.error ? { error: load.error } : {}),
      ...(load.upstream ? { kind: "upstream" as const } : {}),
      ...(limited ? { max_concurrency: limit } : {}),
    });
  }

  const tools: Record<string, CatalogTool> = {};
  for (const [name, versions] of [...byName].sort(([a], [b]) => (a < b ? -1 : 1))) {
    tools[name] = { name, active_version: activeVersion(Object.keys(versions))!, versions };
  }
  return { providers, tools, problems };
}

function unusableSchema(hash: string, schema: ToolManifestEntry["input_schema"]): string | undefined {
  try {
    runtimeValidator(hash, schema);
    return undefined;
  } catch (err) {
    return (err as Error).message.slice(0, 200);
  }
}
