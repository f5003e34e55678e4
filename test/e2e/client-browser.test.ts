/**
 * The packed client (`npm pack` of client/, after `npm run build:client`) in a real browser:
 * Chromium loads its ESM file as a module, with an import map for its one dependency
 * (eventsource-parser) as a page without a bundler would, and calls the runtime through it.
 * (Node 20 and 22: client-package.test.ts; a Worker: test/integration/client-in-workers.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./browser.ts";
import { baseUrl, DEV_KEY } from "./http.ts";
import { packClient, PARSER_DIR, type Packed } from "./packed-client.ts";

let browser: Browser;
let packed: Packed;

// Served from the runtime's own origin, as a page of the deployment would load it.
const PAGE = `<!doctype html><script type="importmap">{"imports": {"eventsource-parser": "/__test/eventsource-parser/index.js"}}</script><title>client</title>`;

async function openPage(): Promise<Page> {
  const page = await browser.context.newPage();
  const serve = (dir: string) => (route: import("playwright-core").Route) => {
    const name = new URL(route.request().url()).pathname.split("/").pop()!;
    return route.fulfill({ status: 200, contentType: "text/javascript", body: readFileSync(join(dir, name)) });
  };
  await page.route(`${baseUrl}/__test/page.html`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: PAGE }),
  );
  await page.route(`${baseUrl}/__test/client/*.js`, serve(join(packed.dir, "package", "dist")));
  await page.route(`${baseUrl}/__test/eventsource-parser/*.js`, serve(join(PARSER_DIR, "dist")));
  await page.goto(`${baseUrl}/__test/page.html`);
  return page;
}

beforeAll(async () => {
  packed = packClient();
  execFileSync("tar", ["-xzf", packed.tarball, "-C", packed.dir]);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  packed?.remove();
});

describe("the packed client in a browser", () => {
  it("loads as an ES module and calls the runtime", async () => {
    const page = await openPage();
    // Source text, so the test's own transform (vite rewrites `import()`) never touches it.
    const answer = await page.evaluate(`(async () => {
      const { createClient } = await import("/__test/client/index.js");
      const runtime = createClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(DEV_KEY)} });
      const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" }, { limits: { timeout_ms: 20000 } });
      return { status: view.status, output: view.output, agent: navigator.userAgent };
    })()`);
    expect(answer).toMatchObject({
      status: "succeeded",
      output: { value: 42 },
      agent: expect.stringContaining("Chrome"),
    });
    await page.close();
  }, 60_000);

  it("streams events until its AbortSignal stops it, and throws typed errors", async () => {
    const page = await openPage();
    const answer = await page.evaluate(`(async () => {
      const { createClient, RegistryError, ToolRuntimeError } = await import("/__test/client/index.js");
      const runtime = createClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(DEV_KEY)} });
      const started = await runtime.start("demo.countdown", { from: 600, interval_ms: 200 }, { limits: { timeout_ms: 120000 } });
      const controller = new AbortController();
      const types = [];
      for await (const e of runtime.stream(started.execution_id, { signal: controller.signal })) {
        types.push(e.type);
        if (types.length === 2) controller.abort();
      }
      const cancelled = (await runtime.cancel(started.execution_id)).status;
      const missing = await runtime.getTool("no.such.tool").catch((e) => e);
      return { types, cancelled, missing: { registry: missing instanceof RegistryError, base: missing instanceof ToolRuntimeError, code: missing.code } };
    })()`);
    expect(answer).toEqual({
      types: ["start", expect.any(String)],
      cancelled: "cancelled",
      missing: { registry: true, base: true, code: "tool_not_found" },
    });
    await page.close();
  }, 60_000);
});
