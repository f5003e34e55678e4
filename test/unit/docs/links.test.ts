/**
 * The docs cannot drift from the tree: every relative link in README.md, every page under
 * docs/ (the guide and the decisions too), and the READMEs of bench/, test/, sim/, client/,
 * examples/upstream-mcp/ and each provider folder names a file that exists (and a heading that
 * exists, when it has an anchor), every `npm run <script>` (and `npm start` / `npm test`) they name is a script in
 * package.json. (Citations of issues or of documents outside the repository: citations.test.ts.)
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, prose, read, root } from "./docs-text.ts";

/** Every Markdown file under a folder, as paths relative to the repository. */
const markdownUnder = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(`${dir}/${e.name}`) : e.name.endsWith(".md") ? [`${dir}/${e.name}`] : [],
  );
const READMES = [
  "bench",
  "test",
  "sim",
  "client",
  "examples/upstream-mcp",
  ...readdirSync(join(root, "providers")).map((p) => `providers/${p}`),
]
  .map((d) => `${d}/README.md`)
  .filter((f) => existsSync(join(root, f)));
const DOCS = ["README.md", ...markdownUnder("docs"), ...READMES];

/** Relative links `[text](target)` and `![alt](target)` outside code, with where they point. */
function relativeLinks(file: string): { target: string; path: string; anchor?: string }[] {
  return [...prose(read(file)).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [path, anchor] = target.split("#");
      return {
        target,
        path: path === "" ? file : relative(root, join(root, dirname(file), decodeURIComponent(path))),
        anchor,
      };
    });
}

describe("the docs", () => {
  it.each(DOCS)("%s: every relative link names an existing file and heading", (file) => {
    const broken = relativeLinks(file).flatMap(({ target, path, anchor }) => {
      if (!existsSync(join(root, path))) return [`${target}: no file ${path}`];
      if (anchor && path.endsWith(".md") && !anchorsOf(read(path)).has(anchor))
        return [`${target}: no heading #${anchor} in ${path}`];
      return [];
    });
    expect(broken).toEqual([]);
  });

  it.each(DOCS)("%s: every npm script it names exists", (file) => {
    const scripts = Object.keys(JSON.parse(read("package.json")).scripts as Record<string, string>);
    const named = [...read(file).matchAll(/\bnpm (?:run(?:-script)? ([\w:.-]+)|(start|test)\b)/g)].map(
      (m) => m[1] ?? m[2],
    );
    expect(named.filter((s) => !scripts.includes(s))).toEqual([]);
  });

  it("finds GitHub's anchors, so a wrong one is caught", () => {
    // The checker itself can fail: these are the anchors GitHub gives these headings.
    expect([
      ...anchorsOf("# Where the time goes\n## `npm test`: the layers\n## Tests\n## Tests\n```\n# not a heading\n```"),
    ]).toEqual(["where-the-time-goes", "npm-test-the-layers", "tests", "tests-1"]);
    expect(anchorsOf('<a id="liveness"></a>**Liveness.**').has("liveness")).toBe(true);
  });
});
