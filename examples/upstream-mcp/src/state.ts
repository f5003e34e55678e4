/**
 * The upstream's state, one SQLite-backed Durable Object: the current definition of the
 * mutable tool (changed by the admin endpoint to test definition pinning) and what each
 * `slow_count` run did (so a test can see that a cancellation reached the upstream).
 */
import { DurableObject } from "cloudflare:workers";

/** A change to a tool's listed definition; absent fields keep their defaults. */
export interface DefinitionOverride {
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/** What one `slow_count` run did, as seen from inside the upstream. */
export interface RunRecord {
  status: "running" | "completed" | "cancelled";
  /** The last number counted. */
  reached: number;
  /** The SHA-256 (hex) of the bearer token the call arrived with, or null. */
  token_sha256: string | null;
  updated_at: string;
}

export class UpstreamState extends DurableObject {
  definition(tool: string): DefinitionOverride | null {
    return this.ctx.storage.kv.get<DefinitionOverride>(`definition:${tool}`) ?? null;
  }

  setDefinition(tool: string, override: DefinitionOverride): void {
    this.ctx.storage.kv.put(`definition:${tool}`, override);
  }

  resetDefinition(tool: string): void {
    this.ctx.storage.kv.delete(`definition:${tool}`);
  }

  run(runId: string): RunRecord | null {
    return this.ctx.storage.kv.get<RunRecord>(`run:${runId}`) ?? null;
  }

  recordRun(runId: string, record: Omit<RunRecord, "updated_at">): void {
    this.ctx.storage.kv.put(`run:${runId}`, { ...record, updated_at: new Date().toISOString() });
  }
}
