/**
 * TenantObject: one Durable Object per tenant, the admission point for its calls (AIOS §6.3
 * RateLimited; TRT-002 §4 limits). Token buckets per tenant and per tenant+tool, and a count
 * of the tenant's running executions.
 *
 * Why a Durable Object and not the platform's rate-limiting binding: the binding counts per
 * Cloudflare location and only over 10 s or 60 s periods, so it can neither bound a tenant
 * globally nor count concurrent executions. One object per tenant is exact for both, at the
 * price of one RPC per call. State is in memory on purpose (no storage write on the hot
 * path): if the object restarts, its buckets refill and running executions are forgotten
 * (their leases would expire anyway at their deadline), so for a moment a tenant may get up
 * to one extra burst and one extra `max_concurrent`. Leases expire at the execution's
 * deadline, so a release that never comes cannot leak capacity.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env.ts";
import type { TenantLimits } from "../src/policy/limits.ts";
import { takeToken, type Bucket } from "../src/policy/token-bucket.ts";
import { meterMethods } from "./cost-meter.ts";

export type Admission = { ok: true } | { ok: false; reason: "rate" | "tool_rate" | "concurrency"; retry_after_ms: number; limit: number };

export class TenantObject extends DurableObject<Env> {
  private tenantBucket: Bucket | undefined;
  private readonly toolBuckets = new Map<string, Bucket>();
  /** execution id → lease expiry (epoch ms). */
  private readonly leases = new Map<string, number>();

  async admit(request: { execution_id: string; tool: string; lease_ms: number; limits: TenantLimits }): Promise<Admission> {
    const now = Date.now();
    const { limits } = request;
    for (const [id, expires] of this.leases) if (expires <= now) this.leases.delete(id);
    if (this.leases.size >= limits.max_concurrent) {
      const soonest = Math.min(...this.leases.values());
      return { ok: false, reason: "concurrency", retry_after_ms: Math.max(1, Math.min(soonest - now, 5_000)), limit: limits.max_concurrent };
    }
    // Both buckets must have a token; take from neither unless both do.
    const tenant = takeToken(this.tenantBucket, limits.requests_per_second, limits.burst, now);
    const tool = takeToken(this.toolBuckets.get(request.tool), limits.tool_requests_per_second, limits.tool_burst, now);
    if (!tenant.ok) return { ok: false, reason: "rate", retry_after_ms: tenant.retry_after_ms, limit: limits.requests_per_second };
    if (!tool.ok) return { ok: false, reason: "tool_rate", retry_after_ms: tool.retry_after_ms, limit: limits.tool_requests_per_second };
    this.tenantBucket = tenant.bucket;
    this.toolBuckets.set(request.tool, tool.bucket);
    this.leases.set(request.execution_id, now + request.lease_ms);
    return { ok: true };
  }

  /** The execution ended: its slot is free. */
  async release(executionId: string): Promise<void> {
    this.leases.delete(executionId);
  }

  /** How many of the tenant's executions are running (for tests and operators). */
  async running(): Promise<number> {
    const now = Date.now();
    return [...this.leases.values()].filter((e) => e > now).length;
  }
}

meterMethods(TenantObject, ["admit", "release", "running"]);
