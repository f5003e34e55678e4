/**
 * The docs cannot drift from the tree: every relative link in README.md, every page under
 * docs/ (the guide and the decisions too), and the READMEs of bench/, test/, sim/, client/,
 * upstreams/example/ and each provider folder names a file that exists (and a heading that
 * exists, when it has an anchor), every `npm run <script>` (and `npm start` / `npm test`) they name is a script in
 * package.json, and none cites an issue number or a document outside the repository.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Every Markdown file under a folder, as paths relative to the repository. */
const markdownUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownUnder(`${dir}/${e.name}`) : e.name.endsWith(".md") ? [`${dir}/${e.name}`] : []));
const READMES = ["bench", "test", "sim", "client", "upstreams/example", ...readdirSync(join(root, "providers")).map((p) => `providers/${p}`)]
  .map((d) => `${d}/README.md`)
  .filter((f) => existsSync(join(root, f)));
const DOCS = ["README.md", ...markdownUnder("docs"), ...READMES];
const read = (file: string) => readFileSync(join(root, file), "utf8");
/** An issue number, or a document this repository does not hold (the specs and notes it grew from). */
const OUTSIDE = /\bissue \d+|(?<![\w&/])#\d+\b|\bAIOS\b|TRT-002|DESIGN\.md|STYLE\.md|\.\.\/shared\b/i;

const withoutFences = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
/** The text outside code blocks and inline code, where a link is a link. */
const prose = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, "");

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[*`]/g, "");
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative links `[text](target)` and `![alt](target)` outside code, with where they point. */
function relativeLinks(file: string): { target: string; path: string; anchor?: string }[] {
  return [...prose(read(file)).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [path, anchor] = target.split("#");
      return { target, path: path === "" ? file : relative(root, join(root, dirname(file), decodeURIComponent(path))), anchor };
    });
}

describe("the docs", () => {
  it.each(DOCS)("%s: every relative link names an existing file and heading", (file) => {
    const broken = relativeLinks(file).flatMap(({ target, path, anchor }) => {
      if (!existsSync(join(root, path))) return [`${target}: no file ${path}`];
      if (anchor && path.endsWith(".md") && !anchorsOf(read(path)).has(anchor)) return [`${target}: no heading #${anchor} in ${path}`];
      return [];
    });
    expect(broken).toEqual([]);
  });

  it.each(DOCS)("%s: every npm script it names exists", (file) => {
    const scripts = Object.keys(JSON.parse(read("package.json")).scripts as Record<string, string>);
    const named = [...read(file).matchAll(/\bnpm (?:run(?:-script)? ([\w:.-]+)|(start|test)\b)/g)].map((m) => m[1] ?? m[2]);
    expect(named.filter((s) => !scripts.includes(s))).toEqual([]);
  });

  it.each(DOCS)("%s: cites no issue number and no document outside the repository", (file) => {
    // A reader has only the repository: a rule is said plainly, or cited as a file in it.
    const cited = read(file)
      .split("\n")
      .flatMap((line, i) => (OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : []));
    expect(cited).toEqual([]);
  });

  it("catches such citations, and lets anchors and code alone", () => {
    for (const bad of ["see issue 12", "fixed in #12.", "AIOS §5.4", "TRT-002 §10", "(DESIGN.md 8)", "STYLE.md", "../shared/spec"]) expect(OUTSIDE.test(bad), bad).toBe(true);
    for (const good of ["[x](#retries)", "`#/$defs/…`", "`e:<seq>`", "issues a token", "&#39;"]) expect(OUTSIDE.test(good), good).toBe(false);
  });

  it("finds GitHub's anchors, so a wrong one is caught", () => {
    // The checker itself can fail: these are the anchors GitHub gives these headings.
    expect([...anchorsOf("# Where the time goes\n## `npm test`: the layers\n## Tests\n## Tests\n```\n# not a heading\n```")]).toEqual([
      "where-the-time-goes",
      "npm-test-the-layers",
      "tests",
      "tests-1",
    ]);
  });
});
