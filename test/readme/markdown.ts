/**
 * The code blocks of README.md and the guide's pages (docs/guide/*.md), as the tests that run
 * them see them (test/e2e/readme.test.ts, test/unit/providers/sdk/readme-provider.test.ts). The markup, also
 * stated in test/README.md:
 *
 *   ```sh                 run, in document order, in one bash session against the stack
 *   ```sh no-run          shown only (starts a server, needs an account, another program…)
 *   ```js run             a program of its own, run with the system's Node (20) against the stack
 *   ```ts run             a program of its own, run with the project's Node (22, type stripping)
 *   ```ts fragment        part of a program; not compiled on its own
 *   ```<lang> file=PATH   a file of an example project; the test that owns PATH builds it
 *   ```json / ```text / ```http right after a run block: what that block prints, with "…"
 *                         standing for what varies (test/readme/expect-output.ts)
 *
 * Blocks may sit in list items (indented fences); their indentation is removed.
 *
 * The pages run in one bash session: README.md first, then each guide page in the order the
 * README's links name them (`documents`), so a variable one block sets is there for the next.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface Block {
  /** The document it is in, relative to the repository (`README.md`, `docs/guide/mcp.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The info string's words after the language (`no-run`, `run`, `fragment`, `file=…`). */
  flags: string[];
  code: string;
  /** The nearest heading above the block. */
  heading: string;
  /** Only blank lines between the previous block's closing fence and this one's opening. */
  followsDirectly: boolean;
}

export const RUN_LANGS = new Set(["sh", "bash"]);
export const OUTPUT_LANGS = new Set(["json", "text", "http"]);

export function blocksOf(markdown: string, file = "README.md"): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  let heading = "";
  let lastClose = -2;
  for (let i = 0; i < lines.length; i++) {
    const h = /^#{1,6}\s+(.*)$/.exec(lines[i]);
    if (h) heading = h[1].trim();
    const open = /^( *)(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const [lang = "", ...flags] = info.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^ *${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`).exec(lines[j]);
      if (close) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    const between = lines.slice(lastClose + 1, i);
    blocks.push({
      file,
      line: i + 1,
      lang: lang.toLowerCase(),
      flags,
      code: body.join("\n") + "\n",
      heading,
      followsDirectly: lastClose >= 0 && between.every((l) => l.trim() === ""),
    });
    lastClose = j;
    i = j;
  }
  return blocks;
}

export const flag = (b: Block, name: string) => b.flags.includes(name);
export const fileOf = (b: Block) => b.flags.find((f) => f.startsWith("file="))?.slice("file=".length);

/** A block the README's test runs: a shell block, or a program marked `run`. */
export const isRun = (b: Block) =>
  (RUN_LANGS.has(b.lang) && !flag(b, "no-run")) || ((b.lang === "js" || b.lang === "ts") && flag(b, "run"));

export interface RunBlock extends Block {
  /** What the block prints, when the README shows it. */
  expected?: Block;
}

/** Run blocks in document order, each with the output block that follows it directly, if any. */
export function runBlocks(blocks: Block[]): RunBlock[] {
  const out: RunBlock[] = [];
  blocks.forEach((b, i) => {
    if (!isRun(b)) return;
    const next = blocks[i + 1];
    out.push({
      ...b,
      expected: next && next.followsDirectly && OUTPUT_LANGS.has(next.lang) && !isRun(next) ? next : undefined,
    });
  });
  return out;
}

export const readme = (path: string, file?: string) => blocksOf(readFileSync(path, "utf8"), file);

export const GUIDE = "docs/guide";

/** The guide's pages that README.md links to, in the order it names them (each once). */
export function guideOrder(readmeText: string): string[] {
  const linked = [...readmeText.matchAll(/\]\((docs\/guide\/[\w.-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]);
  return [...new Set(linked)];
}

/** Every page in docs/guide/, linked or not (a page the README forgets would go unrun). */
export const guidePages = (root: string) =>
  readdirSync(join(root, GUIDE))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `${GUIDE}/${f}`)
    .sort();

/** The documents whose examples run, in run order: README.md, then the guide as it links it. */
export const documents = (root: string) => ["README.md", ...guideOrder(readFileSync(join(root, "README.md"), "utf8"))];

/** Every block of every document, in run order, each knowing its file. */
export const allBlocks = (root: string) => documents(root).flatMap((f) => readme(join(root, f), f));
