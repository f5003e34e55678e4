/**
 * The built client (dist/client/index.js, `npm run build:client`) in a real browser, as it is
 * shipped: Chromium loads the plain ESM file as a module and calls the runtime through it.
 * (Node 20: client-package.test.ts; a Worker: test/integration/client-in-workers.test.ts.)
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type Browser } from "./browser.ts";
import { baseUrl, DEV_KEY } from "./http.ts";

const built = readFileSync(new URL("../../dist/client/index.js", import.meta.url));
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe("the built client in a browser", () => {
  it("loads as an ES module and calls the runtime", async () => {
    const page = await browser.context.newPage();
    // Served from the runtime's own origin, as a page of the deployment would load it.
    await page.route(`${baseUrl}/__test/client.js`, (route) => route.fulfill({ status: 200, contentType: "text/javascript", body: built }));
    await page.goto(`${baseUrl}/healthz`);
    // Source text, so the test's own transform (vite rewrites `import()`) never touches it.
    const answer = await page.evaluate(`(async () => {
      const { createClient } = await import("/__test/client.js");
      const runtime = createClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(DEV_KEY)} });
      const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" }, { limits: { timeout_ms: 20000 } });
      return { status: view.status, output: view.output, agent: navigator.userAgent };
    })()`);
    expect(answer).toMatchObject({ status: "succeeded", output: { value: 42 }, agent: expect.stringContaining("Chrome") });
    await page.close();
  }, 60_000);
});
