/**
 * The documents' code compiles: "Writing a provider" (providers/sdk/README.md) is built as a
 * real provider —
 * its `file=` blocks written where they say, next to the project's SDK, type-checked with the
 * project's compiler options, bundled by wrangler as `npm run build:providers` bundles every
 * provider, its schemas compiled as `npm run build:schemas` compiles them, and its tool
 * called through the SDK — and the programs of README.md and the guide (```ts run, ```js run)
 * type-check against the project's generated code and the built client's declarations. (They
 * run against the stack in test/e2e/readme.test.ts.)
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../../../providers/sdk/define.ts";
import type { EmittedEvent, ExecutionSink, StopSignal } from "../../../../providers/sdk/protocol.ts";
import { runTool } from "../../../../providers/sdk/run-tool.ts";
import { allBlocks, fileOf, flag, readme } from "../../../readme/markdown.ts";

const root = join(import.meta.dirname, "..", "..", "..", "..");
/** The provider guide: its `file=` blocks make a provider. */
const PROVIDER_GUIDE = "providers/sdk/README.md";
const files = readme(join(root, PROVIDER_GUIDE), PROVIDER_GUIDE).filter((b) => fileOf(b)?.startsWith("providers/"));
/** A project of the guide's files: its own providers/ folder, with the real SDK beside them. */
const project = join(root, ".build", "readme-provider");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = promisify(execFile);

/** The provider folders the guide's files make (those with a wrangler.jsonc). */
const providers = files
  .map((b) => fileOf(b)!)
  .filter((f) => f.endsWith("/wrangler.jsonc"))
  .map((f) => dirname(f));

async function typecheck(tsconfig: object): Promise<string> {
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  const out = await run(process.execPath, [tsc, "-p", join(project, "tsconfig.json")], { cwd: project }).catch(
    (err: { stdout?: string; stderr?: string }) => ({ stdout: `${err.stdout ?? ""}${err.stderr ?? ""}` }),
  );
  return out.stdout.trim();
}

beforeAll(() => {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(join(project, "providers"), { recursive: true });
  symlinkSync(join(root, "providers", "sdk"), join(project, "providers", "sdk"), "dir");
  for (const b of files) {
    const path = join(project, fileOf(b)!);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, b.code);
  }
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("providers/sdk/README.md: Writing a provider", () => {
  it("shows a whole provider: a tool, its list, the Worker and its wrangler.jsonc", () => {
    expect(providers.length).toBeGreaterThan(0);
    for (const p of providers) {
      for (const f of ["src/index.ts", "src/tools/index.ts", "wrangler.jsonc"])
        expect(files.map(fileOf), `${p}/${f}`).toContain(`${p}/${f}`);
    }
  });

  it("type-checks with the project's compiler options", async () => {
    const errors = await typecheck({
      extends: join(root, "tsconfig.json"),
      compilerOptions: { noEmit: true },
      include: providers.map((p) => `${p}/src`),
    });
    expect(errors).toBe("");
  }, 120_000);

  it.each(providers)(
    "%s: builds as a Worker, as npm run build:providers builds every provider",
    async (provider) => {
      const wrangler = join(root, "node_modules", ".bin", "wrangler");
      const out = join(project, "out", provider);
      await run(wrangler, ["deploy", "--dry-run", "--outdir", out, "-c", join(project, provider, "wrangler.jsonc")], {
        cwd: project,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
        timeout: 120_000,
      });
      expect(existsSync(join(out, "index.js"))).toBe(true);
    },
    150_000,
  );

  it.each(providers)(
    "%s: its tools' schemas compile in ajv's strict mode, and each tool answers through the SDK",
    async (provider) => {
      const mod = (await import(pathToFileURL(join(project, provider, "src", "tools", "index.ts")).href)) as Record<
        string,
        unknown
      >;
      const tools = Object.values(mod).filter(Array.isArray).flat() as ToolDefinition[];
      expect(tools.length).toBeGreaterThan(0);
      const ajv = new Ajv({ strict: true, allErrors: true });
      for (const tool of tools) {
        const input = ajv.compile(tool.manifest.input_schema as object);
        const output = ajv.compile(tool.manifest.output_schema as object);
        // The guide's tool takes {text}; a provider of other tools would need its own sample here.
        const sample = { text: "hello" };
        expect(input(sample), `${tool.manifest.name} input`).toBe(true);
        const events: EmittedEvent[] = [];
        const sink: ExecutionSink = {
          emit: async (e) => void events.push(e),
          stopped: () => new Promise<StopSignal>(() => {}),
        };
        const result = await runTool(
          tool,
          {
            execution_id: "exec_readme",
            tool: tool.manifest.name,
            version: tool.manifest.version,
            input: sample,
            caller: { tenant: "t", agent: "a" },
            context: {},
            remaining_timeout_ms: 1000,
          },
          sink,
        );
        expect(result).toMatchObject({ ok: true, output: { text: "HELLO" } });
        expect(output((result as { output: unknown }).output)).toBe(true);
        expect(events.map((e) => e.type)).toEqual(["progress"]);
      }
    },
  );
});

describe("README and guide: programs", () => {
  const programs = allBlocks(root).filter((b) => (b.lang === "ts" || b.lang === "js") && flag(b, "run"));

  it("type-check: TypeScript against the generated Connect code, JavaScript against the built client's declarations", async () => {
    expect(programs.length).toBeGreaterThan(0);
    const dir = join(project, "programs");
    mkdirSync(dir, { recursive: true });
    const names = programs.map((b) => {
      const name = `${b.file.replace(/[/.]/g, "-")}-line-${b.line}.${b.lang === "js" ? "mjs" : "ts"}`;
      // As the guide says to place them: in the project (its src/gen, its package name).
      writeFileSync(
        join(dir, name),
        b.code
          .replaceAll('from "./src/', `from "${root}/src/`)
          .replaceAll('from "tool-runtime/client"', `from "${root}/client/dist/index.js"`),
      );
      return `programs/${name}`;
    });
    const errors = await typecheck({
      extends: join(root, "tsconfig.node.json"),
      compilerOptions: {
        noEmit: true,
        allowJs: true,
        checkJs: true,
        module: "esnext",
        moduleResolution: "bundler",
        target: "es2022",
      },
      include: [],
      files: names,
    });
    expect(errors).toBe("");
  }, 120_000);
});
