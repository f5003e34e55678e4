/**
 * Reads wrangler's JSONC configs from scripts that need the file as written (before wrangler's
 * own reader resolves paths and fills defaults): comments and trailing commas are dropped, and
 * strings are kept whole, so a `//` inside a URL is not a comment.
 */
import { readFileSync } from "node:fs";

/** JSONC text to the value it holds. */
export function parseJsonc(text: string): unknown {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  // A trailing comma before a closing bracket is allowed in JSONC, not in JSON.
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}

/** The JSONC file at `path`, parsed. */
export function readJsonc<T = Record<string, unknown>>(path: string): T {
  return parseJsonc(readFileSync(path, "utf8")) as T;
}
