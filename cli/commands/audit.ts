/** `trt audit` (operators): `GET /v1/audit`, every tenant's records, newest first, filtered. */
import type { AuditRecord } from "../../client/index.ts";
import { api } from "../api.ts";
import type { Cli } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { pretty } from "../render.ts";
import { table } from "../table.ts";

export async function audit(cli: Cli): Promise<number> {
  const f = cli.flags;
  const filters = {
    tenant: f.tenant,
    tool: f.tool,
    status: f.status,
    project: f.project,
    since: f.since,
    until: f.until,
    limit: f.limit,
    cursor: f.cursor,
  };
  const query = new URLSearchParams(
    Object.entries(filters).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
  ).toString();
  const page = await api<{ records: AuditRecord[]; next_cursor: string | null }>(
    cli.conn,
    "GET",
    `/v1/audit${query ? `?${query}` : ""}`,
  );
  if (f.json) {
    cli.stdout.write(`${pretty(page)}\n`);
    return EXIT.ok;
  }
  if (page.records.length === 0) cli.stdout.write("no audit records match\n");
  else {
    const rows = page.records.map((r) => [
      r.accepted_at,
      r.execution_id,
      r.tenant,
      r.agent,
      `${r.tool}@${r.version}`,
      r.status,
      r.error_code,
      r.latency_ms,
    ]);
    cli.stdout.write(table(["ACCEPTED", "EXECUTION", "TENANT", "AGENT", "TOOL", "STATUS", "ERROR", "MS"], rows));
  }
  if (page.next_cursor) cli.stdout.write(`more: trt audit --cursor ${page.next_cursor}\n`);
  return EXIT.ok;
}
