/**
 * Every citation a reader meets can be followed from the repository alone: no issue numbers,
 * no documents that live elsewhere, every `docs/<page>.md#anchor` names an anchor of that page,
 * and every repository path named in code, comments or docs exists. Scans the tracked files
 * (`git ls-files`), not generated output or dependencies.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, read, root } from "./docs-text.ts";

/** Not prose or code a reader follows: the lockfile, and this file, whose examples are citations on purpose. */
const SKIPPED = ["package-lock.json", "test/unit/docs/citations.test.ts"];
const BINARY = /\.(png|jpe?g|gif|ico|webp|woff2?|wasm|bin|pdf)$/i;

const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter(
    (f) =>
      f !== "" &&
      !BINARY.test(f) &&
      !SKIPPED.includes(f) &&
      !f.startsWith("node_modules/") &&
      !/(^|\/)(dist|generated|gen)\//.test(f),
  );
const SCANNED = tracked.filter((f) => existsSync(join(root, f)));

type Finding = `${string}:${number}: ${string}`;

function findings(file: string, text: string, check: (line: string, lineNo: number) => string[]): Finding[] {
  return text.split("\n").flatMap((line, i) => check(line, i + 1).map((what): Finding => `${file}:${i + 1}: ${what}`));
}

/** Documents outside the repository: the specs the contract was first written from, and notes beside the repository. */
const OUTSIDE = [/\bAIOS\b/, /\bTRT-002\b/, /\bDESIGN\.md\b/, /\bSTYLE\.md\b/, /\.\.\/shared\//, /\/work\/shared\b/];
/** An issue by number: "issue 12", "Issue #12", "issues 12 and 14", ".../issues/12". */
const ISSUE = [/\bissues?\s+#?\d+/i, /\bissues\/\d+/i];
/** "#12" in a comment: after `//`, `/*`, a leading `*` or `#`, and not an HTML entity (`&#39;`) or a colour. */
const COMMENT_HASH = /(?:\/\/|\/\*|^\s*\*|^\s*#).*?(?<![&\w/#])#\d+(?![\w-])/;
/** "#12" in markdown prose (not a `#section` link, which starts with a letter). */
const MARKDOWN_HASH = /(?<![&\w/#(])#\d+(?![\w-])/;

/** Citations of issues or outside documents on one line. */
export function outsideCitations(file: string, line: string): string[] {
  const found: string[] = [];
  for (const re of [...OUTSIDE, ...ISSUE]) {
    const m = line.match(re);
    if (m) found.push(m[0]);
  }
  if (found.some((f) => /issue/i.test(f))) return found;
  const hash = file.endsWith(".md") ? line.replace(/`[^`]*`/g, "").match(MARKDOWN_HASH) : line.match(COMMENT_HASH);
  if (hash) found.push(hash[0].slice(hash[0].lastIndexOf("#")));
  return found;
}

/** `docs/<page>.md#anchor` citations on one line, with the page and the anchor. */
export function docAnchors(line: string): { page: string; anchor: string }[] {
  return [...line.matchAll(/(?<![\w./-])(docs\/[\w./-]+\.md)#([\w-]+)/g)].map((m) => ({ page: m[1], anchor: m[2] }));
}

const ROOTS = [
  "src",
  "durable-objects",
  "providers",
  "scripts",
  "cli",
  "client",
  "console",
  "test",
  "bench",
  "sim",
  "verifiers",
  "upstreams", // no longer a folder (the example upstream is examples/upstream-mcp): a mention left behind is dead
  "examples",
  "proto",
  "migrations",
  "docs",
  "bin",
];
const PATH = new RegExp(`(?<![\\w./@~-])((?:${ROOTS.join("|")})/[\\w./-]*[\\w/])`, "g");

/**
 * Repository paths named on one line: with a file extension (`src/contract.ts`), or of two
 * folders or more (`providers/std/src`). A single word after a root (`client/server`) may be
 * English, so it is not taken for a path.
 */
export function repositoryPaths(line: string): string[] {
  return [...line.matchAll(PATH)]
    .filter((m) => !/[*{$<]/.test(line[m.index + m[0].length] ?? "")) // a glob or a template, not a path
    .map((m) => m[1].replace(/\.+$/, ""))
    .filter((p) => /\.[a-z]{1,6}$/i.test(p) || p.replace(/\/$/, "").split("/").length >= 3);
}

/**
 * What a reader takes for prose on one line: all of a markdown line; of code, its comment (a
 * code string may name a path on purpose that does not exist, as a test's fixture does).
 */
export function commentOf(file: string, line: string): string {
  if (/\.(md|txt)$/.test(file)) return line;
  if (/^\s*(\/\/|\/\*|\*|#|<!--)/.test(line)) return line;
  const at = line.search(/(^|\s)(\/\/|\/\*)\s/);
  return at < 0 ? "" : line.slice(at);
}

/** Ignored by git: built output a path may rightly name (`src/generated/validators.js`, `.build/…`). */
function ignoredByGit(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync("git", ["check-ignore", "--no-index", "--stdin"], {
      cwd: root,
      input: paths.join("\n"),
      encoding: "utf8",
    });
    return new Set(out.split("\n").filter(Boolean));
  } catch {
    return new Set(); // exit 1: none of them is ignored
  }
}

/** A path exists from the repository root, or from a folder of the file that names it (a package's own `src/…`). */
function pathExists(file: string, path: string): boolean {
  if (existsSync(join(root, path))) return true;
  for (let dir = dirname(file); dir !== "." && dir !== ""; dir = dirname(dir)) {
    if (existsSync(join(root, dir, path))) return true;
  }
  return false;
}

/** The files a page has its reader write (its ```` ```ts file=providers/x/src/index.ts ```` blocks): named before they exist. */
function createdBy(text: string): Set<string> {
  return new Set([...text.matchAll(/^(?:```|~~~)\w*\s+file=(\S+)/gm)].map((m) => m[1]));
}

describe("citations", () => {
  it("scans the tracked files, with only the named exclusions", () => {
    expect(SCANNED.length).toBeGreaterThan(300);
    expect(SCANNED).toContain("src/contract.ts");
    expect(SCANNED).toContain("docs/contract.md");
  });

  it("cite no issue numbers and no documents outside the repository", () => {
    const found = SCANNED.flatMap((file) => findings(file, read(file), (line) => outsideCitations(file, line)));
    expect(found).toEqual([]);
  });

  it("name only anchors that exist in the cited docs page", () => {
    const anchors = new Map<string, Set<string>>();
    const anchorsIn = (page: string) => {
      if (!anchors.has(page)) anchors.set(page, existsSync(join(root, page)) ? anchorsOf(read(page)) : new Set());
      return anchors.get(page)!;
    };
    const found = SCANNED.flatMap((file) =>
      findings(file, read(file), (line) =>
        docAnchors(line)
          .filter(({ page, anchor }) => !anchorsIn(page).has(anchor))
          .map(({ page, anchor }) => `${page}#${anchor}`),
      ),
    );
    expect(found).toEqual([]);
  });

  it("name only repository paths that exist", () => {
    const named = SCANNED.flatMap((file) => {
      const text = read(file);
      const made = createdBy(text);
      return findings(file, text, (line) =>
        repositoryPaths(commentOf(file, line)).filter((p) => !made.has(p) && !pathExists(file, p)),
      );
    });
    const ignored = ignoredByGit([...new Set(named.map((f) => f.slice(f.indexOf(": ") + 2)))]);
    expect(named.filter((f) => !ignored.has(f.slice(f.indexOf(": ") + 2)))).toEqual([]);
  });

  it("catches what it is for, and not HTTP statuses or markdown links", () => {
    // The checker itself can fail: each of these is a citation it must report.
    expect(outsideCitations("src/x.ts", "// see issue 7")).toEqual(["issue 7"]);
    expect(outsideCitations("src/x.ts", " * (Issue #12, AIOS §5.3)")).toEqual(["AIOS", "Issue #12"]);
    expect(outsideCitations("src/x.ts", "  // fixed in #12")).toEqual(["#12"]);
    expect(outsideCitations("docs/x.md", "as [TRT-002](../shared/spec.md) says")).toEqual(["TRT-002", "../shared/"]);
    expect(outsideCitations("docs/x.md", "see https://github.com/o/r/issues/12")).toEqual(["issues/12"]);
    expect(outsideCitations("docs/x.md", "fixed by #12.")).toEqual(["#12"]);
    // ... and these are not citations.
    expect(outsideCitations("src/x.ts", 'status: 429, "&#39;", color: "#123"')).toEqual([]);
    expect(outsideCitations("docs/x.md", "see [Cancellation](#cancellation) and `#12` in code; HTTP 429")).toEqual([]);
    expect(docAnchors("(docs/contract.md#cancellation, docs/roles.md)")).toEqual([
      { page: "docs/contract.md", anchor: "cancellation" },
    ]);
    expect(
      repositoryPaths("`src/pipeline/foo.ts`, providers/std/src, client/server, @scope/client/x.ts, ../src/a.ts."),
    ).toEqual(["src/pipeline/foo.ts", "providers/std/src"]);
    expect(repositoryPaths("covered by test/e2e/mcp*.test.ts and src/${name}.ts")).toEqual([]);
    expect(commentOf("test/x.test.ts", 'const f = "providers/x/src/index.ts"; // from src/a.ts')).toBe(
      " // from src/a.ts",
    );
    expect(pathExists("src/x.ts", "src/pipeline/foo.ts")).toBe(false);
    expect(pathExists("examples/upstream-mcp/README.md", "src/tools.ts")).toBe(true);
    expect(repositoryPaths("run upstreams/old/wrangler.jsonc, not src/upstreams/x")).toEqual([
      "upstreams/old/wrangler.jsonc",
      "src/upstreams/x",
    ]);
    expect(pathExists("README.md", "upstreams/old/wrangler.jsonc")).toBe(false);
  });
});
