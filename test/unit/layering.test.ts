/**
 * The faces only translate. REST (src/routes/), Connect (src/connect/), MCP (src/mcp/), Workers
 * RPC (src/rpc.ts) and the Hono app that wires them (src/app.ts) turn identity and encoding into
 * calls of the execution service; none of them imports a pipeline stage (src/pipeline/). What a
 * face needs on the way in — decoding a body, the depth limit, the payload limit, what a caller
 * may see — lives in src/codec/, src/policy/ or the execution service, so every face gets it the
 * same way and none can drift from the others.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FACES = ["src/routes", "src/connect", "src/mcp", "src/rpc.ts", "src/app.ts"];
const PIPELINE = "src/pipeline/";

/** The modules a source names: `import … from`, `export … from`, `import "…"` and `import("…")`. */
function importsOf(source: string): string[] {
  const pattern =
    /\b(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|\bimport\s*["']([^"']+)["']/g;
  return [...source.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Every TypeScript file of a face, whether the face is a folder or one file. */
function filesOf(path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(path, name));
}

/** Each face file with the repository paths of the modules it imports (packages left out). */
const faceImports = FACES.flatMap(filesOf).map((file) => ({
  file,
  imports: importsOf(readFileSync(join(root, file), "utf8"))
    .filter((spec) => spec.startsWith("."))
    .map((spec) => relative(root, join(root, dirname(file), spec))),
}));

describe("the faces", () => {
  it("import nothing from src/pipeline/", () => {
    const crossings = faceImports.flatMap(({ file, imports }) =>
      imports.filter((target) => target.startsWith(PIPELINE)).map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it("are all read: each face's files are found with the modules they use", () => {
    const uses = (file: string) => faceImports.find((f) => f.file === file)?.imports ?? [];
    expect(uses("src/routes/executions.ts")).toContain("src/execution/service.ts");
    expect(uses("src/connect/service.ts")).toContain("src/execution/service.ts");
    expect(uses("src/mcp/call.ts")).toContain("src/execution/service.ts");
    expect(uses("src/rpc.ts")).toContain("src/execution/service.ts");
    expect(uses("src/app.ts")).toContain("src/mcp/handler.ts");
  });
});

describe("reading imports", () => {
  it("finds every form a module can be named in", () => {
    const source = [
      'import { a } from "./a.ts";',
      "import type {\n  B,\n  C,\n} from '../pipeline/b.ts';",
      'export { d } from "./d.ts";',
      'export * from "./e.ts";',
      'import "./f.ts";',
      'const g = await import("./g.ts");',
      'const h = "not an import from here";',
    ].join("\n");
    expect(importsOf(source)).toEqual(["./a.ts", "../pipeline/b.ts", "./d.ts", "./e.ts", "./f.ts", "./g.ts"]);
  });
});
