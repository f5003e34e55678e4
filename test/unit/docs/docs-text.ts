/**
 * Reading the repository's text as a reader of GitHub does, shared by the link checker
 * (docs-links.test.ts) and the citation checker (citations.test.ts): the root, markdown
 * without its code, and the anchors GitHub gives a page.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const read = (file: string) => readFileSync(join(root, file), "utf8");

export const withoutFences = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
/** The text outside code blocks and inline code, where a link is a link. */
export const prose = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, "");

/**
 * GitHub's anchors of a page: its headings (lower case, punctuation dropped, spaces to hyphens,
 * repeats numbered) and its explicit `<a id="…">` / `<a name="…">` anchors.
 */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = withoutFences(markdown);
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[*`]/g, "");
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"\s*>/g)) anchors.add(id);
  return anchors;
}
