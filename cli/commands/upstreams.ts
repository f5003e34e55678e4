/**
 * `trt upstreams list|show|add|remove|refresh|approve|reject` (operators): upstream MCP servers
 * through `/v1/admin/upstreams`. A changed tool definition waits for an operator: `show`
 * lists each change with its diff and new hash, `approve NAME TOOL --hash H` accepts it,
 * `reject NAME TOOL --hash H [--reason R]` dismisses it for good.
 */
import type { UpstreamView } from "../../src/upstreams/view.ts";
import { api } from "../api.ts";
import type { Cli } from "../context.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { readInput } from "../input.ts";
import { pretty } from "../render.ts";
import { table } from "../table.ts";

const path = (name: string) => `/v1/admin/upstreams/${encodeURIComponent(name)}`;

export async function upstreamsList(cli: Cli): Promise<number> {
  const { upstreams } = await api<{ upstreams: UpstreamView[] }>(cli.conn, "GET", "/v1/admin/upstreams");
  if (cli.flags.json) cli.stdout.write(`${pretty({ upstreams })}\n`);
  else if (upstreams.length === 0) cli.stdout.write("no upstreams\n");
  else {
    const rows = upstreams.map((u) => [
      u.name,
      u.source,
      u.trust,
      u.url ?? `binding ${u.binding}`,
      u.status.served.length,
      u.status.withheld.length,
      u.changes.length,
      u.status.listed_at,
      u.status.error,
    ]);
    cli.stdout.write(
      table(["NAME", "SOURCE", "TRUST", "TARGET", "SERVED", "WITHHELD", "CHANGES", "LISTED", "ERROR"], rows),
    );
  }
  return EXIT.ok;
}

export async function upstreamsShow(cli: Cli, [name]: string[]): Promise<number> {
  return printView(cli, await api<UpstreamView>(cli.conn, "GET", path(name)));
}

export async function upstreamsAdd(cli: Cli, [input]: string[]): Promise<number> {
  const body = await readInput(input);
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new UsageError(
      'an upstream\'s registration is a JSON object: {"name", "url", "trust", "tools", …} (docs/trt.md)',
    );
  const view = await api<UpstreamView>(cli.conn, "POST", "/v1/admin/upstreams", body);
  if (!cli.flags.json) cli.stderr.write(`✓ registered ${view.name}\n`);
  return printView(cli, view);
}

export async function upstreamsRemove(cli: Cli, [name]: string[]): Promise<number> {
  const removed = await api<unknown>(cli.conn, "DELETE", path(name));
  cli.stdout.write(cli.flags.json ? `${pretty(removed)}\n` : `✓ removed ${name}\n`);
  return EXIT.ok;
}

export async function upstreamsRefresh(cli: Cli, [name]: string[]): Promise<number> {
  return printView(cli, await api<UpstreamView>(cli.conn, "POST", `${path(name)}/refresh`));
}

export async function upstreamsApprove(cli: Cli, [name, tool]: string[]): Promise<number> {
  const view = await api<UpstreamView>(cli.conn, "POST", `${path(name)}/tools/${encodeURIComponent(tool)}/approve`, {
    hash: cli.flags.hash,
  });
  if (!cli.flags.json)
    cli.stderr.write(`✓ approved ${tool}'s definition ${cli.flags.hash!.slice(0, 12)}… of ${name}\n`);
  return printView(cli, view);
}

export async function upstreamsReject(cli: Cli, [name, tool]: string[]): Promise<number> {
  const reason = cli.flags.reason?.trim();
  const view = await api<UpstreamView>(cli.conn, "POST", `${path(name)}/tools/${encodeURIComponent(tool)}/reject`, {
    hash: cli.flags.hash,
    ...(reason ? { reason } : {}),
  });
  if (!cli.flags.json)
    cli.stderr.write(`✓ rejected ${tool}'s definition ${cli.flags.hash!.slice(0, 12)}… of ${name}\n`);
  return printView(cli, view);
}

function printView(cli: Cli, u: UpstreamView): number {
  if (cli.flags.json) {
    cli.stdout.write(`${pretty(u)}\n`);
    return EXIT.ok;
  }
  const lines = [
    `${u.name}  (${u.source}, trust ${u.trust}, version ${u.version}, on change: ${u.on_change})`,
    `  target   ${u.url ?? `binding ${u.binding}`}${u.secret ? ` · secret ${u.secret}` : ""}${u.tenant_credentials ? " · tenant credentials" : ""}`,
    `  listed   ${u.status.listed_at ?? "never"}${u.status.error ? ` · error: ${u.status.error}` : ""}`,
    `  served   ${u.status.served.join(", ") || "-"}`,
  ];
  if (u.status.withheld.length) lines.push(`  withheld ${u.status.withheld.join(", ")}`);
  let out = lines.join("\n") + "\n";
  if (u.changes.length) {
    out += "\nchanges awaiting approval (trt upstreams approve|reject NAME TOOL --hash NEW_HASH):\n";
    out += table(
      ["TOOL", "SERVING", "SEEN", "DIFFS", "NEW_HASH"],
      u.changes.map((c) => [c.tool, c.serving, c.seen_at, c.diff.length, c.new_hash]),
    );
  }
  if (u.rejections.length) {
    out += "\nrejected definitions (not raised again):\n";
    out += table(
      ["TOOL", "REJECTED", "BY", "HASH", "REASON"],
      u.rejections.map((r) => [r.tool, r.rejected_at, r.rejected_by, r.hash, r.reason]),
    );
  }
  cli.stdout.write(out);
  return EXIT.ok;
}
