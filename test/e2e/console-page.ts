/** Helpers for the browser tests: sign in, keyboard moves, and the check that every control has a label. */
import type { Page } from "playwright-core";
import { baseUrl } from "./http.ts";

export const consoleUrl = `${baseUrl}/console/`;

export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Tools", level: 1 }).waitFor();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API key").waitFor();
}

/** Presses Tab until the focused element matches `selector` (at most `max` presses). */
export async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Controls on the page without an accessible name (label, aria-label, aria-labelledby or text). */
export function unlabeledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>("input, select, textarea, button, a[href], progress"))
      .filter((el) => {
        const labels = (el as HTMLInputElement).labels;
        if (labels && labels.length > 0) return false;
        if (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby")) return false;
        if ((el.tagName === "BUTTON" || el.tagName === "A") && el.textContent!.trim() !== "") return false;
        return true;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}
