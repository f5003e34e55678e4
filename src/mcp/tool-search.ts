/**
 * The ranking behind `search_tools` (src/mcp/discovery.ts): which of the listed tools a query
 * means, by plain words — no model, nothing learnt. The query and every tool are cut into
 * lowercase words (camelCase, snake_case and dotted names split too; a few filler words
 * dropped), and each distinct query word scores in every field that holds it: the tool's name
 * 3, its description 2, its tags (`_meta["io.tool-runtime/tags"]`, docs/contract.md#tags) 2,
 * its input schema's property names and descriptions 1. A word that
 * shares only a stem with one there (one is a prefix of the other, the shorter at least 4
 * letters: "evaluate", "evaluates") scores half. Tools scoring nothing are left out; ties go by
 * name, so the same list and query always give the same answer.
 */

/** What the ranking reads of a tool: the fields `tools/list` gives it (src/mcp/tools.ts). */
export interface Searchable {
  name: string;
  description?: string;
  inputSchema: object;
  _meta?: Record<string, unknown>;
}

const WEIGHTS = [3, 2, 2, 1];
const FILLER = new Set("a an and are as at be by for from in is it its of on or that the this to with".split(" "));

/** The words of a text, lowercase, in order, filler left out. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !FILLER.has(w));
}

/** The tools the query means, best first (score, then name), at most `limit`. */
export function rankTools<T extends Searchable>(tools: readonly T[], query: string, limit: number): T[] {
  const terms = [...new Set(wordsOf(query))];
  return tools
    .map((tool) => {
      const fields = [tool.name, tool.description ?? "", tagsText(tool), schemaText(tool.inputSchema, 0)].map(wordsOf);
      const score = terms.reduce(
        (sum, term) => sum + fields.reduce((s, f, i) => s + WEIGHTS[i] * matchOf(term, f), 0),
        0,
      );
      return { tool, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0))
    .slice(0, limit)
    .map((s) => s.tool);
}

/** 1 when the field holds the word, ½ when it holds one of the same stem, else 0. */
function matchOf(term: string, field: string[]): number {
  if (field.includes(term)) return 1;
  const stem = (short: string, long: string) => short.length >= 4 && long.startsWith(short);
  return field.some((w) => stem(w, term) || stem(term, w)) ? 0.5 : 0;
}

/** A listed tool's tags, as words. */
function tagsText(tool: Searchable): string {
  const tags = tool._meta?.["io.tool-runtime/tags"];
  return Array.isArray(tags) ? tags.filter((t) => typeof t === "string").join(" ") : "";
}

/** A schema's property names and descriptions, nested ones too (a few levels: schemas are small). */
function schemaText(schema: unknown, depth: number): string {
  if (depth > 4 || schema === null || typeof schema !== "object") return "";
  const s = schema as { properties?: unknown; items?: unknown; description?: unknown };
  const own = typeof s.description === "string" ? s.description : "";
  const properties = s.properties !== null && typeof s.properties === "object" ? Object.entries(s.properties) : [];
  return [
    own,
    ...properties.map(([name, sub]) => `${name} ${schemaText(sub, depth + 1)}`),
    schemaText(s.items, depth + 1),
  ].join(" ");
}
