/**
 * The price model behind `GET /v1/usage`'s cost estimate (docs/contract.md#usage) and the bench's
 * cost lines (bench/prices.ts): Cloudflare's published prices (docs/scale.md#prices; Workers
 * Paid, USD, the marginal price above the monthly inclusion) and what one execution uses of each,
 * as the bench counted it (docs/scale.md#per-execution). A constant, dated, not a deployment
 * setting: the list prices are the same for every deployment and move with Cloudflare's pages,
 * so a release that re-reads them changes `as_of` with them.
 *
 * Left out, as the bench leaves them out: Durable Object duration and storage, D1 rows read and
 * storage, the KV read of an API-key call, the runtime's own CPU (only providers report theirs).
 * Per execution: two audit messages of three queue operations each, the D1 rows of its record,
 * and the tenant, registry and health objects' share (docs/scale.md#per-execution).
 */
import type { ExecutionUnits, PriceModel } from "../contract.ts";

export const PRICES: PriceModel = {
  as_of: "2026-11-30",
  currency: "USD",
  per_million: {
    workers_requests: 0.3,
    queue_operations: 0.4,
    d1_rows_written: 1.0,
    durable_object_requests: 0.15,
    durable_object_rows_written: 1.0,
    cpu_ms: 0.02,
  },
  per_execution: {
    edge: {
      workers_requests: 1,
      queue_operations: 6,
      d1_rows_written: 4.3,
      durable_object_requests: 0.13,
      durable_object_rows_written: 0.04,
    },
    object: {
      workers_requests: 1,
      queue_operations: 6,
      d1_rows_written: 4.2,
      durable_object_requests: 5,
      durable_object_rows_written: 3,
    },
  },
};

/** USD for `edge` and `object` executions whose providers reported `cpuMs` in all, at `prices`. */
export function estimateCost(prices: PriceModel, edge: number, object: number, cpuMs: number): number {
  const each = (units: ExecutionUnits) =>
    (Object.keys(units) as (keyof ExecutionUnits)[]).reduce((s, k) => s + units[k] * prices.per_million[k], 0);
  const micro =
    edge * each(prices.per_execution.edge) +
    object * each(prices.per_execution.object) +
    cpuMs * prices.per_million.cpu_ms;
  return roundUsd(micro / 1e6);
}

/** Nano-dollars: small enough for one execution (~$0.000007), and sums stay exact enough to add up. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e9) / 1e9;
