/** scripts/jsonc.ts reads what wrangler's JSONC configs hold: comments out, strings whole. */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { parseJsonc, readJsonc } from "../../../scripts/jsonc.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

describe("parseJsonc", () => {
  it("drops line and block comments and trailing commas, and keeps // and /* inside strings", () => {
    const text = `// head\n{ "url": "https://a.example/x", /* note */ "glob": "/*", "list": [1, 2,], // tail\n "o": { "k": "v", }, }`;
    expect(parseJsonc(text)).toEqual({ url: "https://a.example/x", glob: "/*", list: [1, 2], o: { k: "v" } });
  });

  it("keeps an escaped quote inside a string", () => {
    expect(parseJsonc(`{ "s": "a \\" // b" }`)).toEqual({ s: 'a " // b' });
  });

  it("reads the runtime's config as wrangler does (its name and vars)", () => {
    const mine = readJsonc<{ name: string; vars: object }>(join(root, "wrangler.jsonc"));
    const theirs = unstable_readConfig({ config: join(root, "wrangler.jsonc") });
    expect(mine.name).toBe(theirs.name);
    expect(mine.vars).toEqual(theirs.vars);
  });
});
