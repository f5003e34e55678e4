/**
 * The metered build (bench/metered/entry.ts) must export every class the product's entry
 * exports: an object reaches the provider relay through `ctx.exports`, so a class left out
 * changes the path the benchmark measures (without the relay, an object calls its provider
 * directly, one hop fewer than the product takes). Read as text: both files import workerd's
 * modules, which Node cannot load.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

describe("the metered build", () => {
  it("exports every class the product's entry exports", () => {
    const product = [...read("src/index.ts").matchAll(/^export \{ (\w+) \} from/gm)].map((m) => m[1]);
    const metered = new Set(
      [...read("bench/metered/entry.ts").matchAll(/^export (?:const|class) (\w+)/gm)].map((m) => m[1]),
    );
    expect(product).toContain("ProviderRelay");
    expect(product.filter((name) => !metered.has(name))).toEqual([]);
  });
});
