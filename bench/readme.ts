/**
 * `npm run bench:readme`: puts the last `npm run bench` run's table into bench/README.md,
 * dated, between its markers, so the figures a reader sees are a real run's, whole, with the
 * day they were measured. It reads the newest bench/results/*.json (the run writes one, with
 * its printed table) and changes nothing else in the page. It runs nothing: the bench is long
 * and loads the machine; this only copies what the last run printed.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const START = "<!-- bench:latest:start (npm run bench:readme writes what is between these markers) -->";
export const END = "<!-- bench:latest:end -->";

/** What the renderer needs of a result file (bench/run.ts writes more). */
export interface BenchResult {
  started_at: string;
  quick: boolean;
  rounds: number;
  cell_ms: number;
  table: string;
}

/** The dated section for one run: when, how long each cell ran, and the table as printed. */
export function renderLatest(r: BenchResult): string {
  const at = new Date(r.started_at);
  if (Number.isNaN(at.getTime()))
    throw new Error(`bench result: started_at is not a time: ${JSON.stringify(r.started_at)}`);
  if (typeof r.table !== "string" || r.table.trim() === "") throw new Error("bench result: no table");
  const when = `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 16)} UTC`;
  const how = r.quick
    ? "a quick run (`npm run bench -- --quick`: one short round; a smoke test, not figures to quote)"
    : `${r.rounds} interleaved round${r.rounds === 1 ? "" : "s"} of ${r.cell_ms / 1000} s per cell, median and min–max over rounds`;
  // A fence longer than any run of backticks in the table, so the table cannot close it.
  const fence = "`".repeat(Math.max(3, ...[...r.table.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return [
    START,
    "",
    `The last recorded run: **${when}**, ${how}.`,
    "",
    `${fence}text`,
    r.table.trimEnd(),
    fence,
    "",
    END,
  ].join("\n");
}

/** The page with its section replaced; the markers must be there, once each, in order. */
export function spliceLatest(page: string, section: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from || page.indexOf(START, from + 1) >= 0 || page.indexOf(END, to + 1) >= 0) {
    throw new Error("bench/README.md: the bench:latest markers are missing, repeated or out of order");
  }
  return page.slice(0, from) + section + page.slice(to + END.length);
}

/** The newest result file's name: bench/run.ts names each by its start time, so names sort by time. */
export const newestResult = (names: string[]) =>
  names
    .filter((n) => n.endsWith(".json"))
    .sort()
    .at(-1);

function main() {
  const root = join(import.meta.dirname, "..");
  const dir = join(root, "bench", "results");
  const name = newestResult(readdirSync(dir));
  if (!name) {
    console.error(
      "no bench/results/*.json: run `npm run bench` first (about 5 minutes; stop `npm start` for figures worth quoting)",
    );
    process.exit(1);
  }
  const result = JSON.parse(readFileSync(join(dir, name), "utf8")) as BenchResult;
  const page = join(root, "bench", "README.md");
  writeFileSync(page, spliceLatest(readFileSync(page, "utf8"), renderLatest(result)));
  console.log(`bench/README.md <- bench/results/${name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
