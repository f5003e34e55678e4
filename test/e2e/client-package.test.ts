/**
 * The client package (client/package.json) as a user meets it: `npm pack` of client/, installed
 * from the tarball into a scratch project, imported there by its name, and run on Node 20 (the
 * machine's own) and Node 22 (this repository's) against the runtime: plain ESM that needs no
 * TypeScript stripping, self-contained declarations, typed errors, AbortSignal, timeouts, pages.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE } from "./cli.ts";
import { baseUrl, DEV_KEY } from "./http.ts";
import { installInScratchProject, packClient, type Packed } from "./packed-client.ts";

const NODE_22 = fileURLToPath(new URL("../../node_modules/.bin/node", import.meta.url));

// Plain JavaScript, as a user of the package writes it; prints one JSON line of findings.
const SCRIPT = `
import { ClientTimeoutError, createClient, RegistryError, ToolRuntimeError } from "@tool-runtime/client";
let cursorRequests = 0;
const counting = (input, init) => (String(input).includes("cursor=") && cursorRequests++, fetch(input, init));
const c = createClient({ baseUrl: process.env.URL, apiKey: process.env.KEY, fetch: counting });
const out = { node: process.version.split(".")[0] };

const view = await c.invoke("math.evaluate", { expression: "6 * 7" }, { limits: { timeout_ms: 20000 }, timeoutMs: 60000 });
out.value = view.output.value;

const missing = await c.invoke("no.such.tool", {}).catch((e) => e);
out.missing = { registry: missing instanceof RegistryError, base: missing instanceof ToolRuntimeError, code: missing.code, name: missing.name };

// A stream stopped by its signal after the first event ends quietly; one past its timeoutMs throws.
const started = await c.start("demo.countdown", { from: 600, interval_ms: 200 }, { limits: { timeout_ms: 120000 } });
const controller = new AbortController();
out.aborted = [];
for await (const e of c.stream(started.execution_id, { signal: controller.signal })) out.aborted.push(e.type), controller.abort();
const late = await (async () => { for await (const _ of c.stream(started.execution_id, { timeoutMs: 300 })) {} })().catch((e) => e);
out.timeout = { typed: late instanceof ClientTimeoutError, code: late?.code };
out.cancelled = (await c.cancel(started.execution_id)).status;

// Two finished calls, then every page of one execution each until both are seen (the audit store fills in the background).
const ids = [];
for (const expression of ["1 + 1", "2 + 2"]) ids.push((await c.invoke("math.evaluate", { expression }, { limits: { timeout_ms: 20000 } })).execution_id);
for (let round = 0; round < 60; round++) {
  const seen = [];
  for await (const e of c.executions.all({ tool: "math.evaluate", limit: 1 })) if (seen.push(e.execution_id) >= 50) break;
  if (ids.every((id) => seen.includes(id))) { out.pages = { both: true, distinct: new Set(seen).size === seen.length, followed: cursorRequests > 0 }; break; }
  await new Promise((r) => setTimeout(r, 500));
}
console.log(JSON.stringify(out));
`;

let packed: Packed;
let project: string;

beforeAll(() => {
  packed = packClient();
  project = installInScratchProject(packed);
  writeFileSync(join(project, "check.mjs"), SCRIPT);
}, 120_000);
afterAll(() => packed?.remove());

describe("the client package", () => {
  it("packs its built JavaScript, declarations and README, and depends on eventsource-parser only", () => {
    expect(packed.files.sort()).toEqual([
      "README.md",
      "dist/index.d.ts",
      "dist/index.js",
      "dist/index.js.map",
      "package.json",
    ]);
    const manifest = JSON.parse(readFileSync(join(project, "node_modules/@tool-runtime/client/package.json"), "utf8"));
    expect(manifest).toMatchObject({
      type: "module",
      sideEffects: false,
      exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
    });
    expect(Object.keys(manifest.dependencies)).toEqual(["eventsource-parser"]);
    const installedParser = JSON.parse(
      readFileSync(join(project, "node_modules/eventsource-parser/package.json"), "utf8"),
    ).version;
    expect(manifest.dependencies["eventsource-parser"]).toBe(installedParser);
  });

  it("ships declarations that import nothing from the repository's sources", () => {
    const dts = readFileSync(join(project, "node_modules/@tool-runtime/client/dist/index.d.ts"), "utf8");
    expect(dts).not.toMatch(/from ["']\.\.?\//);
    expect(dts).toContain("declare function createClient(options: ClientOptions): ToolRuntimeClient;");
    expect(dts).toMatch(/type ExecutionStatus = /);
    expect(dts).toMatch(/declare class RateLimitError extends RequestError/);
  });

  for (const [label, node] of [
    ["the machine's Node (20 here)", NODE],
    ["Node 22", NODE_22],
  ] as const) {
    it(`installed from the tarball, runs on ${label} against the runtime`, () => {
      const out = execFileSync(node, ["check.mjs"], {
        cwd: project,
        env: { URL: baseUrl, KEY: DEV_KEY },
        encoding: "utf8",
        timeout: 90_000,
      });
      const found = JSON.parse(out.trim().split("\n").at(-1)!);
      expect(found).toEqual({
        node: node === NODE_22 ? "v22" : expect.stringMatching(/^v\d+$/),
        value: 42,
        missing: { registry: true, base: true, code: "tool_not_found", name: "RegistryError" },
        aborted: ["start"],
        timeout: { typed: true, code: "client_timeout" },
        cancelled: "cancelled",
        pages: { both: true, distinct: true, followed: true },
      });
    }, 120_000);
  }
});
