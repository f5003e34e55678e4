/**
 * `npm run bench:readme` (bench/readme.ts) puts the last bench run's table into bench/README.md,
 * dated, between its markers, and changes nothing else; it refuses a page without its markers
 * and a result without a time or a table. Checked on a sample result, since the bench itself is
 * long and loads the machine; and the page as committed holds one such section.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { END, newestResult, renderLatest, spliceLatest, START, type BenchResult } from "../../../bench/readme.ts";

const sample: BenchResult = {
  started_at: "2026-12-01T09:05:41.123Z",
  quick: false,
  rounds: 3,
  cell_ms: 3000,
  table: "tool-runtime benchmark, 2026-12-01T09:05:41.123Z, 2 cores\n\nrow   conc   calls/s\nF0       1        50\n",
};

describe("bench/README.md's latest run", () => {
  it("dates the run and keeps its table whole", () => {
    const section = renderLatest(sample);
    expect(section.startsWith(START)).toBe(true);
    expect(section.endsWith(END)).toBe(true);
    expect(section).toContain("The last recorded run: **2026-12-01 09:05 UTC**, 3 interleaved rounds of 3 s per cell");
    expect(section).toContain(
      "```text\ntool-runtime benchmark, 2026-12-01T09:05:41.123Z, 2 cores\n\nrow   conc   calls/s\nF0       1        50\n```",
    );
  });

  it("says when a run was a quick one", () => {
    expect(renderLatest({ ...sample, quick: true, rounds: 1 })).toContain("a quick run (`npm run bench -- --quick`");
  });

  it("fences a table holding backticks with a longer fence", () => {
    expect(renderLatest({ ...sample, table: "a ``` b" })).toContain("````text\na ``` b\n````");
  });

  it("refuses a result without a time or a table", () => {
    expect(() => renderLatest({ ...sample, started_at: "yesterday" })).toThrow(/started_at/);
    expect(() => renderLatest({ ...sample, table: " " })).toThrow(/no table/);
  });

  it("replaces only what is between the markers", () => {
    const page = `# Benchmark\n\nbefore\n\n${START}\n\nold figures\n\n${END}\n\nafter\n`;
    const out = spliceLatest(page, renderLatest(sample));
    expect(out).not.toContain("old figures");
    expect(out.startsWith("# Benchmark\n\nbefore\n\n")).toBe(true);
    expect(out.endsWith("\n\nafter\n")).toBe(true);
    // Running it again with the same result changes nothing.
    expect(spliceLatest(out, renderLatest(sample))).toBe(out);
  });

  it("refuses a page whose markers are missing, repeated or out of order", () => {
    expect(() => spliceLatest("# Benchmark\n", "x")).toThrow(/markers/);
    expect(() => spliceLatest(`${END}\n${START}\n`, "x")).toThrow(/markers/);
    expect(() => spliceLatest(`${START}\n${END}\n${START}\n${END}\n`, "x")).toThrow(/markers/);
  });

  it("takes the newest result by its name (the run's start time)", () => {
    expect(newestResult(["2026-11-30T18-47-00-479Z.json", "2026-12-01T09-05-41-123Z.json", ".gitkeep"])).toBe(
      "2026-12-01T09-05-41-123Z.json",
    );
    expect(newestResult([".gitkeep"])).toBeUndefined();
  });

  it("is in the committed page once, dated", () => {
    const page = readFileSync(join(import.meta.dirname, "..", "..", "..", "bench", "README.md"), "utf8");
    expect(page.split(START).length).toBe(2);
    expect(page.split(END).length).toBe(2);
    expect(page).toMatch(/The last recorded run: \*\*\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\*\*/);
  });
});
