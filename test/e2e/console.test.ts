/**
 * The web console in a real Chromium against the stack `npm start` runs: sign in, run a tool
 * from its generated form, watch a long-running one's progress bar move, cancel it, find it
 * in the executions list, and see an operator's latency chart with data. Screenshots are
 * saved to test/artifacts/.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, tabPerTest } from "./browser.ts";
import { consoleUrl, signIn, signOut, tabTo, unlabeledControls } from "./console-page.ts";
import { ADMIN_KEY, asAdmin, baseUrl, bearer, call, DEV_KEY, execute } from "./http.ts";
import { until } from "./mcp.ts";
import { latencyHistogram, parseMetrics } from "../../console/src/lib/prometheus.ts";

let page: Page;
tabPerTest((tab) => (page = tab));

const percentShown = (page: Page) => page.locator(".monitor progress").getAttribute("data-percent").then(Number);

describe("the web console", () => {
  it("signs in, finds math.evaluate and runs it from the generated form", async () => {
    await signIn(page, DEV_KEY);
    await page.getByLabel("Search tools").fill("math");
    await expect.poll(() => page.locator(".card").count()).toBe(1);
    await screenshot(page, "tools");
    await page.getByRole("link", { name: "math.evaluate" }).click();
    await page.getByRole("heading", { name: "math.evaluate", level: 1 }).waitFor();
    await page.getByLabel("expression").fill("2 * (3 + 4) ^ 2");
    // The form writes the JSON that is sent.
    expect(JSON.parse(await page.getByLabel("Input as JSON").inputValue())).toEqual({ expression: "2 * (3 + 4) ^ 2" });
    await page.getByLabel("Timeout (ms, optional)").fill("5000");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const result = page.getByLabel("Result");
    await result.locator("[data-status='succeeded']").waitFor();
    expect(JSON.parse((await result.getByLabel("Output").textContent()) ?? "")).toEqual({ value: 98 });
    await expect.poll(() => result.getByText("Level 3: capability").count()).toBe(1);
    await screenshot(page, "try-it-result");
  });

  it("streams demo.countdown with a moving progress bar, cancels it to cancelled with partial output, and lists it", async () => {
    await signIn(page, DEV_KEY);
    await page.goto(`${consoleUrl}#/tools/demo.countdown`);
    await page.getByLabel("from").fill("100");
    await page.getByLabel("interval_ms").fill("150");
    await page.getByRole("button", { name: "Run streamed" }).click();
    const monitor = page.locator(".monitor");
    await monitor.waitFor();
    const id = (await monitor.getAttribute("aria-label"))!.replace("Execution ", "");
    // The bar moves: some progress, then more, before the end.
    await expect.poll(() => percentShown(page), { timeout: 20_000 }).toBeGreaterThan(0);
    const first = await percentShown(page);
    await expect.poll(() => percentShown(page), { timeout: 20_000 }).toBeGreaterThan(first);
    expect(await percentShown(page)).toBeLessThan(100);
    await screenshot(page, "countdown-progress");

    await monitor.getByRole("button", { name: "Cancel" }).click();
    await monitor.locator("[data-status='cancelled']").waitFor({ timeout: 20_000 });
    const partial = JSON.parse((await monitor.getByLabel("Partial output").textContent()) ?? "");
    expect(partial.counted.slice(0, 3)).toEqual([100, 99, 98]);
    // The cancel's own answer shows the status; the stream's terminal event may come a moment
    // later (seed 630130 looked in between): the page says, once, that the stream ended.
    await monitor.getByText("The event stream has ended.").waitFor({ timeout: 20_000 });
    expect(await monitor.getByText("The event stream has ended.").count()).toBe(1);
    await screenshot(page, "execution-cancelled");

    // The index follows the audit queue, and the record is sent when the provider has stopped
    // (a provider that ignores the cancel is forced after its grace period): wait, by clock,
    // until the API lists this execution, then the page must show it after one refresh.
    await until(
      () => call("GET", "/v1/executions?status=cancelled&tool=demo.countdown"),
      (r) => r.body.executions?.some((e: { execution_id: string }) => e.execution_id === id),
      30_000,
    );
    await page.getByRole("link", { name: "Executions" }).click();
    await page.getByLabel("Status").selectOption("cancelled");
    await page.getByLabel("Tool").fill("demo.countdown");
    await page.getByRole("button", { name: "Apply filters" }).click();
    const row = page.locator(`tr[data-execution-id='${id}']`);
    await expect
      .poll(
        async () => {
          if ((await row.count()) === 0) {
            await page.getByRole("button", { name: "Refresh" }).click();
            await page.locator("table.data[aria-busy='false']").waitFor();
          }
          return row.locator("[data-status='cancelled']").count();
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    await screenshot(page, "executions-list");
  });

  it("shows an operator a latency chart with data", async () => {
    // The chart counts every tenant's text.stats calls: this test's evidence is the difference
    // its own three calls make, read the way the page reads it (the same parser, from /metrics).
    const metrics = async () => (await fetch(`${baseUrl}/metrics`, { headers: bearer(ADMIN_KEY) })).text();
    const total = async () =>
      latencyHistogram(parseMetrics(await metrics()), "text.stats").reduce((n, b) => n + b.count, 0);
    const before = await total();
    for (let i = 0; i < 3; i++)
      expect(
        (await execute({ tool: "text.stats", input: { text: `chart ${i}` }, limits: { timeout_ms: 5000 } })).status,
      ).toBe(200);
    // Metrics follow the audit queue (about a second behind): wait for the three, by clock.
    await until(total, (n) => n >= before + 3, 30_000);
    await signIn(page, ADMIN_KEY);
    await page.getByRole("link", { name: "Operators" }).click();
    await page.locator("#latency-tool option", { hasText: "text.stats" }).waitFor({ state: "attached" });
    await page.getByLabel("Latency of tool").selectOption("text.stats");
    const chart = page.locator("#latency-chart");
    await chart.locator("canvas").first().waitFor();
    expect(Number(await chart.locator(".chart-canvas").getAttribute("data-total"))).toBeGreaterThanOrEqual(before + 3);
    await expect.poll(() => page.getByRole("heading", { name: "Audit log" }).count()).toBe(1);
    await screenshot(page, "operators");
  });

  it("creates API keys with least privilege unless the operator names more: no channels by default, the role chosen", async () => {
    const tenant = `console-keys-${crypto.randomUUID().slice(0, 8)}`;
    await signIn(page, ADMIN_KEY);
    await page.getByRole("link", { name: "Operators" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await page.locator("#key-channels").inputValue()).toBe("");
    const create = async (agent: string, channels: string | null, role: string) => {
      await page.locator("#key-tenant").fill(tenant);
      await page.locator("#key-agent").fill(agent);
      if (channels !== null) await page.locator("#key-channels").fill(channels);
      await page.locator("#key-role").selectOption(role);
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("alert").waitFor();
      await page.getByRole("button", { name: "I have copied it" }).click();
    };
    await create("plain", null, "agent");
    await create("deciding", "std, lab", "approver");
    await page.getByLabel("List the keys of tenant").fill(tenant);
    const rows = page.locator("section[aria-labelledby='keys-heading'] table.data tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    const cells = async (agent: string) =>
      (await rows.filter({ hasText: agent }).locator("td").allInnerTexts()).slice(0, 4);
    expect(await cells("plain")).toEqual([tenant, "plain", "agent", "none"]);
    expect((await rows.filter({ hasText: "plain" }).locator("td").allInnerTexts())[4]).toBe("none");
    expect(await cells("deciding")).toEqual([tenant, "deciding", "approver", "none"]);
    expect((await rows.filter({ hasText: "deciding" }).locator("td").allInnerTexts())[4]).toBe("std, lab");
    // What the console created is what the API holds.
    const held = (await asAdmin("GET", `/v1/admin/keys?tenant=${tenant}`)).body.keys as {
      agent: string;
      channels: string[];
      role: string;
      key_id: string;
    }[];
    expect(held.map((k) => [k.agent, k.role, k.channels]).sort()).toEqual([
      ["deciding", "approver", ["std", "lab"]],
      ["plain", "agent", []],
    ]);
    for (const k of held) await asAdmin("DELETE", `/v1/admin/keys/${k.key_id}`);
  });

  it("is usable from the keyboard, and every control has a label", async () => {
    await page.goto(consoleUrl);
    // The key field takes the focus when the page has rendered (autofocus), which a loaded
    // machine can delay past the load event: type only once it has it, or the key goes nowhere.
    await page.waitForFunction(() => document.activeElement?.id === "api-key");
    await page.keyboard.type(DEV_KEY);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Tools", level: 1 }).waitFor();
    expect(await unlabeledControls(page)).toEqual([]);
    await tabTo(page, "#tool-search");
    await page.keyboard.type("countdown");
    await tabTo(page, "a[href='#/tools/demo.countdown']");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "demo.countdown", level: 1 }).waitFor();
    await tabTo(page, "#field-from");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("50");
    await tabTo(page, "button[data-mode='stream']");
    await page.keyboard.press("Enter");
    await page.locator(".monitor").waitFor();
    await tabTo(page, ".monitor button.danger:not([disabled])");
    await page.keyboard.press("Enter");
    await page.locator(".monitor [data-status='cancelled']").waitFor({ timeout: 20_000 });
    expect(await unlabeledControls(page)).toEqual([]);
    await page.getByRole("link", { name: "Executions" }).click();
    await page.getByRole("heading", { name: "Executions", level: 1 }).waitFor();
    expect(await unlabeledControls(page)).toEqual([]);
    await signOut(page);
    await signIn(page, ADMIN_KEY);
    await page.getByRole("link", { name: "Operators" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await unlabeledControls(page)).toEqual([]);
    // The whole walk — two sign-ins, a stream cancelled (its end awaited up to 20 s), four pages —
    // outgrew the default 30 s once in a clean-clone run on a loaded machine (seed 88887).
  }, 60_000);
});
