/**
 * Build step (Workers refuse code generation at run time, docs/contract.md#validation): compiles
 * every provider tool's input and output schema into ES modules of standalone ajv validators.
 * Production workerd refuses `new Function` while serving, so nothing may compile a schema at
 * run time. Two modules, one interface (`validators`, by schema hash):
 *
 *   src/generated/validators.js      the providers that ship: those whose Worker wrangler.jsonc
 *                                    binds. What `npm run deploy` bundles (package.json's
 *                                    `imports` maps `#validators` here).
 *   src/generated/validators-dev.js  every provider under providers/, the lab ones too. What
 *                                    `npm start`, the tests, the bench and the simulation bundle:
 *                                    wrangler.dev-overlay.jsonc's `alias` points `#validators` here.
 *
 * So the shipped Worker does not carry validators for providers that only development registers.
 * Runs under Node 22 (type stripping) before `npm start`, `npm test` and `npm run deploy`.
 * A schema that does not compile fails the build, naming the tool and the reason.
 */
import { readdirSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import type { ToolDefinition } from "../providers/sdk/define.ts";
import { schemaHash } from "../src/schema/schema-hash.ts";
import { readJsonc } from "./jsonc.ts";
import { writeIfChanged } from "./write-if-changed.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, "src", "generated");

/** The ajv options every prebuilt validator is compiled with. Strict mode rejects sloppy schemas. */
export const AJV_OPTIONS = { strict: true, allErrors: true, code: { source: true, esm: true, lines: false } } as const;

interface Found {
  where: string;
  /** The provider's folder under providers/. */
  provider: string;
  tool: ToolDefinition;
}

/** The provider folders whose Worker (its wrangler.jsonc `name`) the shipped runtime binds as a service. */
export function shippedProviders(repoRoot: string): Set<string> {
  const runtime = readJsonc<{ services?: { service: string }[] }>(join(repoRoot, "wrangler.jsonc"));
  const bound = new Set((runtime.services ?? []).map((s) => s.service));
  const shipped = new Set<string>();
  for (const name of readdirSync(join(repoRoot, "providers"))) {
    const config = join(repoRoot, "providers", name, "wrangler.jsonc");
    if (existsSync(config) && bound.has(readJsonc<{ name: string }>(config).name)) shipped.add(name);
  }
  return shipped;
}

async function collectTools(): Promise<Found[]> {
  const providersDir = join(root, "providers");
  const found: Found[] = [];
  for (const name of readdirSync(providersDir).sort()) {
    const index = join(providersDir, name, "src", "tools", "index.ts");
    if (!existsSync(index)) continue;
    const mod = (await import(pathToFileURL(index).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (!Array.isArray(value)) continue;
      for (const tool of value as ToolDefinition[]) {
        if (tool?.manifest?.name) found.push({ where: relative(root, index), provider: name, tool });
      }
    }
  }
  return found;
}

/** One module of standalone validators for `tools`' schemas, and how many it holds. */
async function validatorModule(tools: Found[]): Promise<{ module: string; count: number }> {
  const ajv = new Ajv(AJV_OPTIONS);
  const exportsByHash = new Map<string, string>();
  const failures: string[] = [];

  for (const { where, tool } of tools) {
    const m = tool.manifest;
    for (const [which, schema] of [
      ["input", m.input_schema],
      ["output", m.output_schema],
    ] as const) {
      const hash = await schemaHash(schema);
      if (exportsByHash.has(hash)) continue;
      try {
        ajv.addSchema(schema as object, hash);
        ajv.getSchema(hash); // compiles now, so the error names this tool
        exportsByHash.set(hash, `v_${hash}`);
      } catch (err) {
        ajv.removeSchema(hash);
        failures.push(`  ${m.name}@${m.version} (${where}) ${which} schema: ${(err as Error).message}`);
      }
    }
  }
  if (failures.length > 0) throw new Error(`schema build failed:\n${failures.join("\n")}`);

  const refs = Object.fromEntries([...exportsByHash].map(([hash, name]) => [name, hash]));
  let code = standaloneCode(ajv, refs);
  // The generated code `require`s a few ajv runtime helpers; turn them into ESM imports so
  // every bundler (wrangler's, vite's) resolves them the same way.
  // Bundlers differ in what a namespace import of a CommonJS module holds: its exports, or an
  // object whose `default` is its exports. `__cjs` gives back the exports either way, which is
  // what the generated `require(...)` expected (every ajv runtime module sets `exports.default`).
  const imports: string[] = [
    'const __cjs = (ns) => (ns.default && typeof ns.default === "object" && "default" in ns.default ? ns.default : ns);',
  ];
  code = code.replace(/require\("(ajv\/dist\/runtime\/[a-z0-9_]+)"\)/g, (_m, spec: string) => {
    const local = `__ajv_runtime_${imports.length}`;
    imports.unshift(`import * as ${local} from "${spec}.js";`);
    return `__cjs(${local})`;
  });
  const table = [...exportsByHash].map(([hash, name]) => `  "${hash}": ${name},`).join("\n");
  const module = [
    "// Generated by scripts/build-schemas.ts. Do not edit; rebuilt before dev, test and deploy.",
    ...imports,
    code.replace(/^"use strict";/, ""),
    `/** Prebuilt validators by schema hash. */`,
    `export const validators = {\n${table}\n};`,
    "",
  ].join("\n");
  return { module, count: exportsByHash.size };
}

const DECLARATION = [
  "// Generated by scripts/build-schemas.ts.",
  'import type { ValidateFunction } from "ajv";',
  "export declare const validators: Record<string, ValidateFunction>;",
  "",
].join("\n");

async function main(): Promise<void> {
  const tools = await collectTools();
  if (tools.length === 0) throw new Error("schema build: no tools found under providers/*/src/tools/index.ts");
  const shipped = shippedProviders(root);
  if (shipped.size === 0) throw new Error("schema build: wrangler.jsonc binds no provider under providers/");
  mkdirSync(outDir, { recursive: true });
  for (const [file, chosen] of [
    ["validators.js", tools.filter((t) => shipped.has(t.provider))],
    ["validators-dev.js", tools],
  ] as const) {
    const { module, count } = await validatorModule(chosen);
    // Unchanged modules are left alone: a running wrangler dev rebuilds on any write to its bundle.
    writeIfChanged(join(outDir, file), module);
    writeIfChanged(join(outDir, file.replace(/\.js$/, ".d.ts")), DECLARATION);
    const providers = [...new Set(chosen.map((t) => t.provider))].join(", ");
    console.log(
      `schema build: ${count} validators for ${chosen.length} tools (${providers}) -> ${relative(root, outDir)}/${file}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
