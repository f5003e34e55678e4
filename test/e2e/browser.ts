/**
 * A real Chromium for the browser tests: Debian's /usr/bin/chromium (installed by
 * scripts/ensure-chromium.ts) driven by playwright-core, headless, with a fresh profile per
 * launch. Screenshots go to test/artifacts/ (git-ignored).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

export const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "trt-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * One Chromium per test file and a tab of its own per test (session storage — the console's
 * key and drafts — is per tab): registers the hooks and hands each test's new tab to `use`.
 *
 *   let page: Page;
 *   tabPerTest((tab) => (page = tab));
 */
export function tabPerTest(use: (tab: Page) => void): void {
  let browser: Browser | undefined;
  let tab: Page | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    tab = await browser!.context.newPage();
    use(tab);
  });
  afterEach(async () => {
    await tab?.close();
  });
}
