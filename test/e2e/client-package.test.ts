/**
 * The built client (dist/client/, `npm run build:client`) as a Node 20 user meets it: plain
 * ESM JavaScript that needs no TypeScript stripping, with self-contained declarations.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NODE } from "./cli.ts";
import { baseUrl, DEV_KEY } from "./http.ts";

const dist = new URL("../../dist/client/", import.meta.url).pathname;

describe("the built client", () => {
  it("runs on the machine's own Node (20 here) against the runtime", () => {
    const script = `const { createClient } = await import(${JSON.stringify(`${dist}index.js`)});
      const c = createClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });
      const v = await c.invoke("math.evaluate", { expression: "6 * 7" }, { limits: { timeout_ms: 5000 } });
      console.log(process.version.split(".")[0], v.output.value);`;
    const out = execFileSync(NODE, ["--input-type=module", "-e", script], { env: { URL: baseUrl, KEY: DEV_KEY }, encoding: "utf8" });
    expect(out.trim()).toMatch(/^v\d+ 42$/);
  });

  it("ships declarations that import nothing from the runtime's sources", () => {
    const dts = readFileSync(`${dist}index.d.ts`, "utf8");
    expect(dts).not.toMatch(/from ["']\.\.?\//);
    expect(dts).toContain("declare function createClient(options: ClientOptions): ToolRuntimeClient;");
    expect(dts).toMatch(/type ExecutionStatus = /);
  });
});
