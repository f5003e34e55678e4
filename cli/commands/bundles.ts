/**
 * `trt bundles list|show|put|remove`: a tenant's tool bundles (docs/contract.md#bundles) through
 * the typed client's `/v1/bundles` methods. A tenant admin manages its own tenant's; an operator
 * any tenant's, named with --tenant. Each bundle is shown with the URL it is served at,
 * `<runtime>/mcp/<name>`, which is what an MCP client is given.
 */
import type { Bundle, BundleSpec } from "../../client/index.ts";
import type { Cli } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { pretty } from "../render.ts";
import { table } from "../table.ts";

/** Where an MCP client reaches the bundle. */
export const mcpUrl = (runtime: string, name: string) => `${runtime.replace(/\/+$/, "")}/mcp/${name}`;

const whose = (cli: Cli) => (cli.flags.tenant ? { tenant: cli.flags.tenant } : {});

export async function bundlesList(cli: Cli): Promise<number> {
  const { bundles } = await cli.client.listBundles(whose(cli));
  cli.stdout.write(cli.flags.json ? `${pretty({ bundles })}\n` : renderBundleList(bundles, cli.conn.url));
  return EXIT.ok;
}

export async function bundlesShow(cli: Cli, [name]: string[]): Promise<number> {
  const bundle = await cli.client.getBundle(name, whose(cli));
  cli.stdout.write(cli.flags.json ? `${pretty(bundle)}\n` : renderBundle(bundle, cli.conn.url));
  return EXIT.ok;
}

export async function bundlesPut(cli: Cli, [name]: string[]): Promise<number> {
  const { bundle, created } = await cli.client.putBundle(name, bundleSpec(cli.flags), whose(cli));
  if (cli.flags.json) cli.stdout.write(`${pretty(bundle)}\n`);
  else {
    cli.stderr.write(`✓ ${created ? "created" : "replaced"} bundle ${bundle.name}\n`);
    cli.stdout.write(renderBundle(bundle, cli.conn.url));
  }
  return EXIT.ok;
}

export async function bundlesRemove(cli: Cli, [name]: string[]): Promise<number> {
  const removed = await cli.client.deleteBundle(name, whose(cli));
  cli.stdout.write(cli.flags.json ? `${pretty(removed)}\n` : `✓ removed bundle ${name}\n`);
  return EXIT.ok;
}

/** The PUT body the flags describe: only what was given (the runtime's defaults for the rest). */
export function bundleSpec(
  f: Pick<Cli["flags"], "tools" | "prefixes" | "channels" | "tags" | "discovery" | "description">,
): BundleSpec {
  return Object.fromEntries(
    Object.entries({
      description: f.description,
      tools: f.tools,
      prefixes: f.prefixes,
      channels: f.channels,
      tags: f.tags,
      discovery: f.discovery,
    }).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  ) as BundleSpec;
}

export function renderBundleList(bundles: Bundle[], runtime: string): string {
  if (bundles.length === 0) return "no bundles\n";
  return table(
    ["NAME", "DISCOVERY", "TOOLS", "PREFIXES", "CHANNELS", "TAGS", "MCP_URL"],
    bundles.map((b) => [
      b.name,
      b.discovery,
      b.tools.join(","),
      b.prefixes.join(","),
      b.channels.join(","),
      b.tags.join(","),
      mcpUrl(runtime, b.name),
    ]),
  );
}

export function renderBundle(b: Bundle, runtime: string): string {
  const row = (label: string, values: string[]) => `  ${label.padEnd(9)}${values.join(", ") || "-"}`;
  return [
    `${b.name}  (discovery ${b.discovery}, updated ${b.updated_at})`,
    ...(b.description ? [`  ${b.description}`] : []),
    row("tools", b.tools),
    row("prefixes", b.prefixes),
    row("channels", b.channels),
    row("tags", b.tags),
    row("mcp", [mcpUrl(runtime, b.name)]),
    "",
  ].join("\n");
}
