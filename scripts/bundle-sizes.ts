/**
 * `npm run bundle-sizes`: the upload size of every Worker `npm run deploy` ships, as
 * `wrangler deploy --dry-run` reports it, written into docs/bundle-sizes.md between its markers,
 * with where the runtime's bytes go (from the bundler's metafile). The dry run builds the upload
 * exactly as a deploy would and stops before contacting Cloudflare; where the machine allows it
 * runs with no network at all (`unshare -rn`). Needs the validators, the protobuf code and the
 * console's assets built first (the npm script builds them). test/unit/scripts/bundle-sizes.test.ts fails
 * when the committed figures drift from what the dry run reports.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SHIPPED } from "./deploy.ts";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PAGE = join(ROOT, "docs", "bundle-sizes.md");
const START = "<!-- bundle-sizes:start (npm run bundle-sizes writes this part) -->";
const END = "<!-- bundle-sizes:end -->";

/** One Worker's upload as the dry run reports it, in KiB. */
export interface BundleSize {
  config: string;
  upload: number;
  gzip: number;
}

/** The runtime's bundle by where its bytes come from: an npm package or a top-level source folder. */
export interface Share {
  source: string;
  kib: number;
}

export interface Measured {
  sizes: BundleSize[];
  shares: Share[];
}

/** `unshare -rn` where user namespaces are allowed; otherwise the dry run keeps the network. */
export const offline = spawnSync("unshare", ["-rn", "true"]).status === 0;

/** Runs one dry run; its upload size and, with `metafile`, the bundler's account of its inputs. */
export async function dryRun(config: string, outdir: string, metafile?: string): Promise<BundleSize> {
  const wrangler = join(ROOT, "node_modules", ".bin", "wrangler");
  const args = ["deploy", "--dry-run", "--outdir", outdir, "-c", config, ...(metafile ? ["--metafile", metafile] : [])];
  const { stdout, stderr } = await promisify(execFile)(
    offline ? "unshare" : wrangler,
    offline ? ["-rn", wrangler, ...args] : args,
    {
      cwd: ROOT,
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        CI: "true",
        NO_COLOR: "1",
      },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const size = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(`${stdout}${stderr}`);
  if (!size) throw new Error(`${config}: the dry run printed no upload size:\n${stdout}${stderr}`);
  return { config, upload: Number(size[1]), gzip: Number(size[2]) };
}

/** The runtime's config: the one SHIPPED at the repository's root (the others are in folders). */
export const runtimeConfig = (): string => SHIPPED.find((c) => !c.includes("/"))!;

/** Dry-runs every shipped Worker (one after another: the machine's cores are shared). */
export async function measure(): Promise<Measured> {
  const out = mkdtempSync(join(tmpdir(), "tool-runtime-bundle-sizes-"));
  try {
    const sizes: BundleSize[] = [];
    let shares: Share[] = [];
    for (const config of SHIPPED) {
      const isRuntime = config === runtimeConfig();
      const metafile = isRuntime ? join(out, "meta.json") : undefined;
      sizes.push(await dryRun(config, join(out, config.replace(/\//g, "_")), metafile));
      if (metafile) shares = sharesOf(JSON.parse(readFileSync(metafile, "utf8")));
    }
    return { sizes, shares };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The part of esbuild's metafile read here. */
export interface Metafile {
  inputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/**
 * The inputs a module's evaluation runs: everything `entry` reaches by static imports. A
 * dynamic `import()` is not followed: esbuild keeps what only it reaches in the bundle but
 * leaves it uninitialised until the `import()` runs.
 */
export function eagerInputs(meta: Pick<Metafile, "inputs">, entry: string): Set<string> {
  const seen = new Set([entry]);
  const queue = [entry];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    for (const i of meta.inputs[path]?.imports ?? []) {
      if (i.kind === "dynamic-import" || i.external || seen.has(i.path)) continue;
      seen.add(i.path);
      queue.push(i.path);
    }
  }
  return seen;
}

/** Bytes in the output per npm package (`@scope/name`) or per source folder (`src/mcp`). */
export function sharesOf(meta: Pick<Metafile, "outputs">): Share[] {
  const js = Object.entries(meta.outputs).find(([path]) => path.endsWith(".js"));
  if (!js) throw new Error("the metafile names no .js output");
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(js[1].inputs)) {
    const at = input.lastIndexOf("node_modules/");
    let source: string;
    if (at >= 0) {
      const parts = input.slice(at + "node_modules/".length).split("/");
      source = parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
    } else {
      source = input.split("/").slice(0, 2).join("/");
    }
    bytes.set(source, (bytes.get(source) ?? 0) + bytesInOutput);
  }
  return [...bytes]
    .map(([source, b]) => ({ source, kib: Math.round((b / 1024) * 10) / 10 }))
    .sort((a, b) => b.kib - a.kib);
}

/** How many of the runtime's sources the page lists by name; the rest are summed in one row. */
const LISTED = 14;

const workerName = (config: string) =>
  config.includes("/") ? `\`${dirname(config)}\`` : "the runtime (the console's assets not counted)";

export function render(m: Measured, date: string): string {
  const rows = m.sizes.map(
    (s) => `| ${workerName(s.config)} | \`${s.config}\` | ${s.upload.toFixed(2)} KiB | ${s.gzip.toFixed(2)} KiB |`,
  );
  const listed = m.shares.slice(0, LISTED);
  const rest = m.shares.slice(LISTED).reduce((sum, s) => sum + s.kib, 0);
  const shareRows = [
    ...listed.map((s) => `| \`${s.source}\` | ${s.kib.toFixed(1)} KiB |`),
    `| everything else (${m.shares.length - listed.length} sources) | ${rest.toFixed(1)} KiB |`,
  ];
  return [
    START,
    `Measured ${date} with \`wrangler deploy --dry-run\`.`,
    "",
    "| Worker | config | upload | gzip |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "Where the runtime's upload comes from (bytes each source puts in the bundle, before gzip):",
    "",
    "| source | in the bundle |",
    "| --- | --- |",
    ...shareRows,
    END,
  ].join("\n");
}

/** The committed figures: the Worker table's rows, by config. */
export function committedSizes(page: string): BundleSize[] {
  const block = page.slice(page.indexOf(START), page.indexOf(END));
  const out: BundleSize[] = [];
  for (const m of block.matchAll(/^\| [^|]+ \| `([^`]+)` \| ([\d.]+) KiB \| ([\d.]+) KiB \|$/gm)) {
    out.push({ config: m[1]!, upload: Number(m[2]), gzip: Number(m[3]) });
  }
  return out;
}

/** The committed source shares, by source. */
export function committedShares(page: string): Share[] {
  const block = page.slice(page.indexOf(START), page.indexOf(END));
  return [...block.matchAll(/^\| `([^`]+)` \| ([\d.]+) KiB \|$/gm)].map((m) => ({ source: m[1]!, kib: Number(m[2]) }));
}

export function replaceBlock(page: string, block: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${PAGE} has no ${START} … ${END} block`);
  return `${page.slice(0, from)}${block}${page.slice(to + END.length)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const measured = await measure();
  const page = readFileSync(PAGE, "utf8");
  writeFileSync(PAGE, replaceBlock(page, render(measured, new Date().toISOString().slice(0, 10))));
  for (const s of measured.sizes)
    console.log(
      `${s.config}: ${s.upload.toFixed(2)} KiB (gzip ${s.gzip.toFixed(2)} KiB)${offline ? ", built without a network" : ""}`,
    );
}
