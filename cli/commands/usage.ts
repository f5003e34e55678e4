/** `trt usage` (a tenant's admin, operators): `GET /v1/usage`, a tenant's use by day and tool with a cost estimate. */
import type { TenantUsage } from "../../client/index.ts";
import { api } from "../api.ts";
import type { Cli } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { pretty } from "../render.ts";
import { table } from "../table.ts";

export async function usage(cli: Cli): Promise<number> {
  const f = cli.flags;
  const query = new URLSearchParams(
    Object.entries({ from: f.from, to: f.to, tenant: f.tenant, tool: f.tool }).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, String(v)]],
    ),
  ).toString();
  const u = await api<TenantUsage>(cli.conn, "GET", `/v1/usage${query ? `?${query}` : ""}`);
  if (f.json) {
    cli.stdout.write(`${pretty(u)}\n`);
    return EXIT.ok;
  }
  const row = (day: string, tool: string, s: TenantUsage["totals"]) => [
    day,
    tool,
    s.executions.total,
    s.executions.succeeded,
    s.executions.failed,
    s.executions.cancelled,
    s.executions.timed_out,
    s.cpu_ms,
    s.estimated_cost_usd.toFixed(6),
  ];
  const rows = [...u.days.map((d) => row(d.day, d.tool, d)), row("total", "", u.totals)];
  cli.stdout.write(
    table(["DAY", "TOOL", "CALLS", "SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT", "CPU_MS", "USD"], rows),
  );
  cli.stdout.write(
    `tenant ${u.tenant}, ${u.from} to ${u.to}; prices of ${u.prices.as_of}; the store holds records since ${u.oldest_record_at ?? "(none)"}\n`,
  );
  return EXIT.ok;
}
