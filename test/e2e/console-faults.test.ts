/**
 * The web console when things go wrong: a wrong key, a session whose key is revoked, a 429,
 * a dropped event stream, a schema the form cannot render, JSON that does not parse. Each
 * time the page says what happened and what to do, and what the user typed is still there.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, tabPerTest } from "./browser.ts";
import { consoleUrl, signIn } from "./console-page.ts";
import { asAdmin, bearer, call, DEV_KEY } from "./http.ts";
import { hold, newLatch } from "./latch.ts";
import { tenant } from "./tenants.ts";

let page: Page;
tabPerTest((tab) => (page = tab));

const newKey = async (tenant: string) =>
  (await asAdmin("POST", "/v1/admin/keys", { tenant, agent: "dev-agent", channels: ["*"] })).body as {
    key: string;
    key_id: string;
  };
const alert = (page: Page) => page.getByRole("alert").first();

describe("the web console when things go wrong", () => {
  it("says a wrong key was refused, or that a pasted placeholder cannot be sent, and keeps what was typed", async () => {
    await page.goto(consoleUrl);
    await page.getByLabel("API key").fill("trt_not_a_real_key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => alert(page).textContent()).toContain("did not accept this API key");
    expect(await page.getByLabel("API key").inputValue()).toBe("trt_not_a_real_key");
    await page.getByLabel("API key").fill("trt_…");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => alert(page).textContent()).toContain('contains "…" at position 5');
    expect(await page.getByLabel("API key").inputValue()).toBe("trt_…");
  });

  it("asks to sign in again over the page when the key is revoked mid-session, and keeps the input", async () => {
    const first = await newKey(`console-${crypto.randomUUID().slice(0, 8)}`);
    await signIn(page, first.key);
    await page.goto(`${consoleUrl}#/tools/math.evaluate`);
    await page.getByLabel("expression").fill("40 + 2");
    expect((await asAdmin("DELETE", `/v1/admin/keys/${first.key_id}`)).status).toBe(200);
    await page.getByLabel("Timeout (ms, optional)").fill("5000");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Your session has ended" }).waitFor();
    await screenshot(page, "session-ended");
    expect(JSON.parse(await page.getByLabel("Input as JSON").inputValue())).toEqual({ expression: "40 + 2" });
    await dialog.getByLabel("API key").fill(DEV_KEY);
    await dialog.getByRole("button", { name: "Sign in" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByLabel("Result").locator("[data-status='succeeded']").waitFor();
    expect(JSON.parse((await page.getByLabel("Result").getByLabel("Output").textContent()) ?? "")).toEqual({
      value: 42,
    });
  });

  it("says when a call is refused with 429 and when to try again, and keeps the input", async () => {
    // A tenant of the "slots" family may run 2 executions at once and have 4 waiting
    // (test/e2e/tenants.ts): hold all six places, with calls that run until cancelled, then ask for one more.
    const narrow = await newKey(tenant("slots"));
    const holding: string[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const res = await call(
          "POST",
          "/v1/executions",
          {
            ...hold(newLatch(), { heed_cancel: true, max_ms: 120_000 }),
            mode: "async",
            limits: { timeout_ms: 120_000 },
          },
          bearer(narrow.key),
        );
        expect(res.status).toBe(202);
        holding.push(res.body.execution_id);
      }
      await signIn(page, narrow.key);
      await page.goto(`${consoleUrl}#/tools/text.stats`);
      await page.getByLabel("text").fill("keep these words");
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await expect.poll(() => alert(page).textContent()).toContain("Too many calls right now (queue_full)");
      expect(await alert(page).textContent()).toMatch(/Wait and try again in \d+ s; nothing was run\./);
      expect(await page.getByLabel("Error envelope").textContent()).toContain('"code": "rate_limited"');
      expect(JSON.parse(await page.getByLabel("Input as JSON").inputValue())).toMatchObject({
        text: "keep these words",
      });
      await screenshot(page, "rate-limited");
    } finally {
      for (const id of holding) await call("POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 }, bearer(narrow.key));
    }
  });

  it("says when the live events dropped, and Reconnect resumes after the last event shown", async () => {
    const started = await call("POST", "/v1/executions", {
      tool: "demo.countdown",
      mode: "async",
      input: { from: 5, interval_ms: 50 },
    });
    await signIn(page, DEV_KEY);
    // Every connection to the event stream fails until the route is lifted.
    await page.route("**/v1/executions/*/stream", (route) => route.abort("connectionreset"));
    await page.goto(`${consoleUrl}#/executions/${started.body.execution_id}`);
    await page.getByRole("button", { name: "Reconnect" }).waitFor({ timeout: 20_000 });
    expect(await page.getByRole("status").first().textContent()).toContain("The live events stopped.");
    expect(await page.getByRole("status").first().textContent()).toContain("The execution itself goes on");
    await screenshot(page, "stream-lost");
    await page.unroute("**/v1/executions/*/stream");
    await page.getByRole("button", { name: "Reconnect" }).click();
    await page.getByText("The event stream has ended.").waitFor({ timeout: 20_000 });
    const seqs = await page.locator(".events li .seq").allTextContents();
    expect(seqs.map(Number)).toEqual(seqs.map((_, i) => i + 1));
    expect(await page.locator(".events li").last().getAttribute("data-type")).toBe("done");
    await page.locator(".monitor [data-status='succeeded']").waitFor();
  });

  it("falls back to the JSON editor for a schema the form cannot render, and never drops text that does not parse", async () => {
    await signIn(page, DEV_KEY);
    await page.goto(`${consoleUrl}#/tools/json.query`);
    await expect
      .poll(() => page.getByRole("note").first().textContent())
      .toContain('cannot be shown as a form (field "document"');
    const editor = page.getByLabel("Input as JSON");
    await editor.fill('{"document": {"a": [1, 2, {"b": "found"}]}, "path": "/a/2/b"');
    await expect.poll(() => page.locator("#raw-json-state").textContent()).toContain("Not valid JSON yet");
    expect(await page.getByRole("button", { name: "Run", exact: true }).isDisabled()).toBe(true);
    await editor.press("End");
    await editor.pressSequentially("}");
    await page.getByLabel("Timeout (ms, optional)").fill("5000");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const output = JSON.parse((await page.getByLabel("Result").getByLabel("Output").textContent()) ?? "");
    expect(output).toMatchObject({ found: true, value: "found" });
    // Reloading the page keeps what was typed (the tab's session storage).
    await page.reload();
    await page.getByRole("heading", { name: "json.query", level: 1 }).waitFor();
    expect(JSON.parse(await page.getByLabel("Input as JSON").inputValue())).toMatchObject({ path: "/a/2/b" });
  });
});
