/**
 * The console's grants page in a real Chromium (docs/oauth.md#grants): two real OAuth grants of
 * a fresh tenant, made over HTTP as an MCP client makes them, are listed for the tenant's admin
 * a page at a time with their client, agent and what was granted; revoking one there (after a
 * confirmation, which a dismissal leaves alone) takes it off the list, and its access token is
 * refused by /mcp from then on while the other grant's token still calls. A key that is not the
 * tenant's admin sees the API's refusal.
 */
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, tabPerTest } from "./browser.ts";
import { signIn, unlabeledControls } from "./console-page.ts";
import { asAdmin, baseUrl, bearer, ROOMY } from "./http.ts";
import { modern } from "./mcp.ts";
import { makeGrant, type MadeGrant } from "./oauth-grant.ts";

/** How long the page may take to show what the API answered (a loaded machine is slow, never this slow). */
const SOON = { timeout: 15_000 };

let page: Page;
tabPerTest((tab) => (page = tab));

/** A fresh tenant with a person's key (agent role, every channel) and its admin's key; `remove` revokes what is left. */
async function freshTenant() {
  const tenant = `console-grants-${randomUUID().slice(0, 8)}`;
  const person = await asAdmin("POST", "/v1/admin/keys", { tenant, agent: "person", channels: ["*"] });
  const admin = await asAdmin("POST", "/v1/admin/keys", { tenant, agent: "ops", role: "tenant_admin" });
  expect([person.status, admin.status]).toEqual([201, 201]);
  return {
    person: person.body as { key: string; key_id: string },
    admin: admin.body as { key: string; key_id: string },
    async remove() {
      for (const g of await listed(admin.body.key))
        await fetch(`${baseUrl}/v1/oauth/grants/${g.grant_id}`, { method: "DELETE", headers: bearer(admin.body.key) });
      await asAdmin("DELETE", `/v1/admin/keys/${person.body.key_id}`);
      await asAdmin("DELETE", `/v1/admin/keys/${admin.body.key_id}`);
    },
  };
}

/**
 * `math.evaluate` over /mcp with an OAuth access token: the HTTP status, the value when it ran, and
 * else the answer (ROOMY limits: the tool's own budget is shorter than a busy machine's overhead).
 */
async function evaluate(token: string): Promise<{ status: number; value?: unknown; answer?: unknown }> {
  const res = await modern(
    "tools/call",
    { name: "math.evaluate", arguments: { expression: "6 * 7" }, _meta: { "io.tool-runtime/limits": ROOMY } },
    { key: token },
  );
  const value = res.body?.result?.structuredContent?.value;
  return value === undefined ? { status: res.status, answer: res.body } : { status: res.status, value };
}

async function listed(adminKey: string): Promise<any[]> {
  const res = await fetch(`${baseUrl}/v1/oauth/grants`, { headers: bearer(adminKey) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { grants: any[] }).grants;
}

async function openGrants(key: string): Promise<void> {
  await signIn(page, key);
  await page.getByRole("link", { name: "Grants" }).click();
  await page.getByRole("heading", { name: "Grants", level: 1 }).waitFor();
}

const rows = () => page.locator("table.grants tbody tr[data-grant-id]");
const shownIds = () => rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-grant-id")));
const revokeButton = (g: MadeGrant) =>
  page.getByRole("button", { name: `Revoke the grant to ${g.clientName} (${g.clientId}) (agent person)` });

describe("the console's grants page", () => {
  it("lists the tenant's grants page by page, and revokes one so that its token is refused", async () => {
    const t = await freshTenant();
    const suffix = randomUUID().slice(0, 8);
    try {
      const every = await makeGrant(t.person.key, `Every channel ${suffix}`, { grant: "all" });
      const std = await makeGrant(t.person.key, `Std only ${suffix}`, { grant: "channels", channel: "std" });
      expect(await evaluate(every.accessToken)).toEqual({ status: 200, value: 42 });
      expect(await evaluate(std.accessToken)).toEqual({ status: 200, value: 42 });
      const api = await listed(t.admin.key);
      const idOf = (g: MadeGrant) => api.find((x) => x.client_id === g.clientId)!.grant_id as string;
      expect(api).toHaveLength(2);

      await openGrants(t.admin.key);
      // One a page: each page shows one grant, and the two pages together show both.
      await page.getByLabel("Per page").fill("1");
      await page.getByRole("button", { name: "Show" }).click();
      await expect.poll(shownIds, SOON).toHaveLength(1);
      const first = await shownIds();
      await page.getByRole("button", { name: "Next page" }).click();
      // The caption turns to page 2 before its rows arrive: wait for the other grant's row.
      await expect.poll(async () => (await shownIds()).filter((id) => !first.includes(id)), SOON).toHaveLength(1);
      const second = await shownIds();
      expect(second).toHaveLength(1);
      expect([...first, ...second].sort()).toEqual([idOf(every), idOf(std)].sort());

      // All on one page: each row says which client, the agent, what was granted, and when.
      await page.getByLabel("Per page").fill("20");
      await page.getByRole("button", { name: "Show" }).click();
      await expect.poll(async () => (await shownIds()).sort(), SOON).toEqual([idOf(every), idOf(std)].sort());
      for (const [g, granted] of [
        [every, "every channel the key allows"],
        [std, "channels std"],
      ] as const) {
        const row = page.locator(`tr[data-grant-id='${idOf(g)}']`);
        expect(await row.locator("th").textContent()).toContain(g.clientName);
        expect(await row.locator("code.client-id").textContent()).toBe(g.clientId);
        expect(await row.locator("td").first().textContent()).toContain("person");
        expect(await row.locator(".granted").textContent()).toBe(granted);
        const created = api.find((x) => x.client_id === g.clientId)!.created_at;
        expect(await row.locator("time").first().getAttribute("datetime")).toBe(created);
      }
      expect(await unlabeledControls(page)).toEqual([]);
      await screenshot(page, "grants");

      // Dismissing the confirmation revokes nothing.
      page.once("dialog", (d) => void d.dismiss());
      await revokeButton(every).click();
      expect(await shownIds()).toContain(idOf(every));
      expect(await evaluate(every.accessToken)).toEqual({ status: 200, value: 42 });

      let asked = "";
      page.once("dialog", (d) => {
        asked = d.message();
        void d.accept();
      });
      await revokeButton(every).click();
      await page.getByRole("status").filter({ hasText: "Revoked the grant" }).waitFor();
      expect(asked).toContain(every.clientName);
      await expect.poll(shownIds, SOON).toEqual([idOf(std)]);

      // Over HTTP: the revoked grant's token is refused by /mcp; the other grant's still calls.
      expect(await evaluate(every.accessToken)).toMatchObject({ status: 401 });
      expect(await evaluate(std.accessToken)).toEqual({ status: 200, value: 42 });
      expect((await listed(t.admin.key)).map((g) => g.grant_id)).toEqual([idOf(std)]);
    } finally {
      await t.remove();
    }
  });

  it("shows a key that is not the tenant's admin the API's refusal", async () => {
    const t = await freshTenant();
    try {
      await openGrants(t.person.key);
      const problem = page.locator(".problem[role='alert']");
      await problem.waitFor();
      expect(await problem.textContent()).toContain("tenant_admin");
      expect(await problem.locator("code").textContent()).toBe("forbidden");
      expect(await problem.textContent()).toContain("HTTP 403");
      expect(await rows().count()).toBe(0);
    } finally {
      await t.remove();
    }
  });
});
