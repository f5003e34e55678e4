/** A tenant's usage (`GET /v1/usage`, docs/contract.md#usage) and the price model it is estimated with. */
/** What each unit costs, USD per million. */
export interface UnitPrices {
  workers_requests: number;
  queue_operations: number;
  d1_rows_written: number;
  durable_object_requests: number;
  durable_object_rows_written: number;
  /** A provider Worker's CPU time, per million milliseconds. */
  cpu_ms: number;
}

/** Units one execution uses, by where it ran; CPU is the providers' reported figure, apart. */
export type ExecutionUnits = Omit<UnitPrices, "cpu_ms">;

export interface PriceModel {
  /** When the prices were read (YYYY-MM-DD). */
  as_of: string;
  currency: "USD";
  per_million: UnitPrices;
  /**
   * `edge`: a fast-path call (sync, unstreamed, unkeyed; an `exec_e…` id); `object`: one that ran
   * in its execution object (async, streamed or keyed).
   */
  per_execution: { edge: ExecutionUnits; object: ExecutionUnits };
}

/** Executions by terminal status (docs/contract.md#statuses): an audit record is written when one has ended. */
export interface StatusCounts {
  succeeded: number;
  failed: number;
  cancelled: number;
  timed_out: number;
  total: number;
}

/** Sums of one group of executions. */
export interface UsageSums {
  executions: StatusCounts;
  /** Executions that ran at the edge (fast path) and in their own object: the cost model prices them apart. */
  paths: { edge: number; object: number };
  /** The providers' reported CPU time; null when none of them reported a measured figure. */
  cpu_ms: number | null;
  estimated_cost_usd: number;
}

export interface TenantUsage {
  tenant: string;
  /** The window, UTC days, inclusive. */
  from: string;
  to: string;
  /** When the oldest record the store still holds ended (any tenant's): days before it are not held, not unused. */
  oldest_record_at: string | null;
  prices: PriceModel;
  /** By day (of acceptance), then tool; a day or tool without executions is left out. */
  days: (UsageSums & { day: string; tool: string })[];
  totals: UsageSums;
}
