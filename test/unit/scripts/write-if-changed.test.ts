/**
 * A build that changed nothing writes nothing (scripts/write-if-changed.ts): a running wrangler
 * dev reloads its Workers on any write to its bundle or assets, same bytes or not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildDocs } from "../../../scripts/build-docs.ts";
import { syncFolder, writeIfChanged } from "../../../scripts/write-if-changed.ts";

const dir = mkdtempSync(join(tmpdir(), "write-if-changed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Sets a file's modification time far in the past, so a write shows as a newer one. */
const age = (path: string) => utimesSync(path, new Date(2000, 0, 1), new Date(2000, 0, 1));
const touched = (path: string) => statSync(path).mtime.getFullYear() !== 2000;

describe("writeIfChanged", () => {
  it("leaves a file holding the same bytes alone, and writes one that differs or is missing", () => {
    const path = join(dir, "a", "b.txt");
    expect(writeIfChanged(path, "one")).toBe(true);
    age(path);
    expect(writeIfChanged(path, "one")).toBe(false);
    expect(writeIfChanged(path, Buffer.from("one"))).toBe(false);
    expect(touched(path)).toBe(false);
    expect(writeIfChanged(path, "two")).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("two");
  });
});

describe("syncFolder", () => {
  it("copies only what differs and removes what the new build no longer has", () => {
    const [from, to] = [join(dir, "from"), join(dir, "to")];
    writeIfChanged(join(from, "same.js"), "same");
    writeIfChanged(join(from, "nested", "new.js"), "new");
    writeIfChanged(join(to, "same.js"), "same");
    writeIfChanged(join(to, "stale.js"), "old build");
    age(join(to, "same.js"));
    syncFolder(from, to);
    expect(touched(join(to, "same.js"))).toBe(false);
    expect(readFileSync(join(to, "nested", "new.js"), "utf8")).toBe("new");
    expect(existsSync(join(to, "stale.js"))).toBe(false);
  });
});

describe("npm run build:docs", () => {
  it("writes nothing when the page has not changed, and mends a page that differs", () => {
    const out = join(dir, "docs");
    const page = buildDocs(out);
    age(page);
    age(join(out, "style.css"));
    buildDocs(out);
    expect([touched(page), touched(join(out, "style.css"))]).toEqual([false, false]);
    writeFileSync(page, "stale");
    buildDocs(out);
    expect(readFileSync(page, "utf8")).toMatch(/^<!doctype html>/);
  });
});
