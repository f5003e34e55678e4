/**
 * The execution page while a call waits, in a real Chromium: queued for a slot of its tenant
 * (a "narrow" tenant runs two at once), scheduled for room at its provider (lab at
 * max_concurrency 1, restored after), and awaiting a person's approval (an "approve" tenant),
 * which an approver decides from the console. Each time the page shows the status and the
 * place or the approval, and follows the call when it moves on.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, tabPerTest } from "./browser.ts";
import { consoleUrl, signIn, unlabeledControls } from "./console-page.ts";
import { asAdmin, bearer, call } from "./http.ts";
import { tenant } from "./tenants.ts";

let page: Page;
tabPerTest((tab) => (page = tab));

async function newKey(t: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await asAdmin("POST", "/v1/admin/keys", { tenant: t, agent: "dev-agent", channels: ["*"], ...fields });
  expect(res.status).toBe(201);
  return res.body.key;
}
const start = async (key: string, body: Record<string, unknown>) => {
  const res = await call(
    "POST",
    "/v1/executions",
    { mode: "async", limits: { timeout_ms: 10_000 }, ...body },
    bearer(key),
  );
  expect(res.status).toBe(202);
  return res.body as { execution_id: string; status: string };
};
const cancel = (key: string, id: string) => call("POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 }, bearer(key));

/** Reads through `read` until `ok`, at most `tries` times 100 ms apart (the state decides, not the clock). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, tries = 100): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  if (!ok(v)) throw new Error(`${what} never happened: ${JSON.stringify(v).slice(0, 300)}`);
  return v;
}

const shownStatus = (page: Page) => page.locator(".monitor [data-status]").first().getAttribute("data-status");
const fact = (page: Page, term: string) =>
  page
    .locator(".timings div", { has: page.locator("dt", { hasText: term }) })
    .locator("dd")
    .textContent();

async function openExecution(page: Page, key: string, id: string): Promise<void> {
  await signIn(page, key);
  await page.goto(`${consoleUrl}#/executions/${id}`);
  await page.locator(".monitor").waitFor();
}

describe("the execution page while a call waits", () => {
  it("shows a queued call's place in its tenant's line, then follows it when it starts and ends", async () => {
    const key = await newKey(tenant("narrow")); // two at once
    const holders = [
      await start(key, { tool: "lab.long", input: { ms: 9_000 } }),
      await start(key, { tool: "lab.long", input: { ms: 9_000 } }),
    ];
    try {
      expect(holders.map((h) => h.status)).toEqual(["running", "running"]);
      const waiting = await start(key, { tool: "lab.long", input: { ms: 50 } });
      expect(waiting.status).toBe("queued");
      await openExecution(page, key, waiting.execution_id);
      await expect.poll(() => shownStatus(page)).toBe("queued");
      await expect.poll(() => fact(page, "Place in line")).toBe("1 (for a slot of its tenant)");
      expect(await unlabeledControls(page)).toEqual([]);
      await screenshot(page, "execution-queued");
      await cancel(key, holders[0].execution_id);
      await expect.poll(() => shownStatus(page), { timeout: 20_000 }).toBe("succeeded");
      expect(await page.locator(".timings dt", { hasText: "Place in line" }).count()).toBe(0);
    } finally {
      for (const h of holders) await cancel(key, h.execution_id);
    }
  });

  it("shows a scheduled call's place at its provider's max_concurrency, then follows it when room is made", async () => {
    const key = await newKey(`gate-${crypto.randomUUID()}`);
    expect((await asAdmin("PATCH", "/v1/admin/providers/lab", { max_concurrency: 1 })).body).toMatchObject({
      name: "lab",
      max_concurrency: 1,
    });
    let busy: { execution_id: string } | undefined;
    try {
      const dryRun = () =>
        call("POST", "/v1/executions", { tool: "lab.gauge", mode: "dry_run", input: {} }, bearer(key)).then(
          (r) => r.body,
        );
      await until(dryRun, (d) => d.ranking?.[0]?.max_concurrency === 1, "the new max_concurrency reaching this edge");
      busy = await start(key, { tool: "lab.gauge", input: { ms: 8_000 } });
      await until(dryRun, (d) => d.waits_for_capacity === true, "lab being full");
      const waiting = await start(key, { tool: "lab.gauge", input: { ms: 10 } });
      expect((await call("GET", `/v1/executions/${waiting.execution_id}`, undefined, bearer(key))).body).toMatchObject({
        status: "scheduled",
        position: 1,
      });
      await openExecution(page, key, waiting.execution_id);
      await expect.poll(() => shownStatus(page)).toBe("scheduled");
      await expect.poll(() => fact(page, "Place in line")).toBe("1 (for room at its provider)");
      await screenshot(page, "execution-scheduled");
      await cancel(key, busy.execution_id);
      await expect.poll(() => shownStatus(page), { timeout: 20_000 }).toBe("succeeded");
    } finally {
      if (busy) await cancel(key, busy.execution_id);
      expect(
        (await asAdmin("PATCH", "/v1/admin/providers/lab", { max_concurrency: null })).body.max_concurrency,
      ).toBeUndefined();
    }
  });

  it("shows a call awaiting approval to its caller, lists it for an approver, who approves it from the page", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "console-approver", role: "approver" });
    const name = `thing-${crypto.randomUUID()}`;
    const waiting = await start(caller, { tool: "lab.erase", input: { name } });
    expect(waiting.status).toBe("awaiting_approval");

    // The caller sees what it waits for, and no way to decide it.
    await openExecution(page, caller, waiting.execution_id);
    await expect.poll(() => shownStatus(page)).toBe("awaiting_approval");
    await expect.poll(() => fact(page, "Approval")).toMatch(/^needed \(rule: effect delete\), until /);
    expect(await page.getByRole("link", { name: "Approvals" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Approve/ }).count()).toBe(0);
    await page.getByRole("button", { name: "Sign out" }).click();

    await signIn(page, approver);
    await page.getByRole("link", { name: "Approvals" }).click();
    await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
    const card = page.locator(`li[data-execution-id='${waiting.execution_id}']`);
    await card.waitFor();
    expect(JSON.parse((await card.getByLabel(`Input of ${waiting.execution_id}`).textContent()) ?? "")).toEqual({
      name,
    });
    expect(await unlabeledControls(page)).toEqual([]);
    await screenshot(page, "approvals");
    await card.getByRole("link", { name: /^lab\.erase@/ }).click();
    await page.locator(".monitor").waitFor();
    await expect.poll(() => shownStatus(page)).toBe("awaiting_approval");
    const decide = page.getByRole("group", { name: /^Decide on lab\.erase/ });
    // A rejection needs a reason: without one the button stays off.
    expect(await decide.getByRole("button", { name: /^Reject/ }).isDisabled()).toBe(true);
    await decide.getByLabel("Reason (required to reject)").fill("checked in the console");
    await decide.getByRole("button", { name: /^Approve/ }).click();
    await expect.poll(() => shownStatus(page), { timeout: 20_000 }).toBe("succeeded");
    await expect
      .poll(() => fact(page, "Approval"))
      .toBe("approved by console-approver: checked in the console (rule: effect delete)");
    const view = (await call("GET", `/v1/executions/${waiting.execution_id}`, undefined, bearer(caller))).body;
    expect(view).toMatchObject({
      status: "succeeded",
      output: { erased: name },
      approval: { decision: { decision: "approved", approver: "console-approver", reason: "checked in the console" } },
    });
  });

  it("rejects a call from the approvals page with a reason; it ends failed and never runs", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "console-approver", role: "approver" });
    const waiting = await start(caller, { tool: "lab.erase", input: { name: `thing-${crypto.randomUUID()}` } });
    await signIn(page, approver);
    await page.getByRole("link", { name: "Approvals" }).click();
    const card = page.locator(`li[data-execution-id='${waiting.execution_id}']`);
    await card.getByLabel("Reason (required to reject)").fill("not this one");
    await card.getByRole("button", { name: /^Reject/ }).click();
    await card.waitFor({ state: "detached" });
    expect((await call("GET", `/v1/executions/${waiting.execution_id}`, undefined, bearer(caller))).body).toMatchObject(
      {
        status: "failed",
        error: { code: "approval_rejected" },
        approval: { decision: { decision: "rejected", approver: "console-approver", reason: "not this one" } },
        execution: { started_ms: null },
      },
    );
  });
});
