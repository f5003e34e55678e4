/**
 * The code is formatted by Prettier (`.prettierrc.json`: print width 120; `.prettierignore`:
 * the docs, configs and built output are left as written). `npm run format` fixes what this
 * test finds; a file that is not formatted fails `npm test`, so the formatter never has to
 * land as a sweeping change again.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const ignorePath = [join(root, ".prettierignore"), join(root, ".gitignore")];

/** The tracked files Prettier formats (its own ignore rules decide, as `prettier --check .` does). */
async function formatted(): Promise<string[]> {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
  const files: string[] = [];
  for (const file of tracked) {
    const info = await prettier.getFileInfo(join(root, file), { ignorePath });
    if (!info.ignored && info.inferredParser !== null) files.push(file);
  }
  return files;
}

describe("formatting", () => {
  it("formats every file of code with Prettier", async () => {
    const files = await formatted();
    expect(files.length).toBeGreaterThan(400);
    expect(files).toContain("src/execution/service.ts");
    const unformatted: string[] = [];
    for (const file of files) {
      const options = await prettier.resolveConfig(join(root, file));
      const text = readFileSync(join(root, file), "utf8");
      if (!(await prettier.check(text, { ...options, filepath: join(root, file) }))) unformatted.push(file);
    }
    expect(unformatted, "run npm run format").toEqual([]);
  }, 120_000);

  it("catches a file that is not formatted", async () => {
    const options = await prettier.resolveConfig(join(root, "src/contract.ts"));
    expect(await prettier.check("const a = {b:1}\n", { ...options, filepath: join(root, "src/x.ts") })).toBe(false);
    expect(await prettier.check("const a = { b: 1 };\n", { ...options, filepath: join(root, "src/x.ts") })).toBe(true);
  });
});
