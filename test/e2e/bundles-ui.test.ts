/**
 * A tenant's tool bundles where people manage them (docs/contract.md#bundles): the console's
 * Bundles page in a real Chromium, and `trt bundles` as a child process, both against the real
 * stack. A tenant admin creates a bundle by tag, sees it listed with its MCP URL, an MCP client
 * of the tenant lists its tools there, and deleting it stops that; a plain agent's key sees the
 * API's refusal in both.
 */
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, tabPerTest } from "./browser.ts";
import { trt } from "./cli.ts";
import { signIn, unlabeledControls } from "./console-page.ts";
import { asAdmin, baseUrl, bearer } from "./http.ts";
import { connect, MCP_URL } from "./mcp.ts";

const SOON = { timeout: 15_000 };

let page: Page;
tabPerTest((tab) => (page = tab));

/** A fresh tenant with its admin's key and an agent's (every channel); `remove` revokes both. */
async function freshTenant() {
  const tenant = `bundles-ui-${randomUUID().slice(0, 8)}`;
  const admin = await asAdmin("POST", "/v1/admin/keys", { tenant, agent: "ops", role: "tenant_admin" });
  const agent = await asAdmin("POST", "/v1/admin/keys", { tenant, agent: "bot", channels: ["*"] });
  expect([admin.status, agent.status]).toEqual([201, 201]);
  return {
    admin: admin.body.key as string,
    agent: agent.body.key as string,
    async remove() {
      for (const k of [admin.body, agent.body]) await asAdmin("DELETE", `/v1/admin/keys/${k.key_id}`);
    },
  };
}

/** What `/mcp/{bundle}` lists for `key`, or the error connecting there. */
async function listedAt(bundle: string, key: string): Promise<string[] | unknown> {
  try {
    const { client } = await connect("modern", key, `${MCP_URL}/${bundle}`);
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  } catch (err) {
    return err;
  }
}

async function openBundles(key: string): Promise<void> {
  await signIn(page, key);
  await page.getByRole("link", { name: "Bundles" }).click();
  await page.getByRole("heading", { name: "Bundles", level: 1 }).waitFor();
}

describe("the console's bundles page", () => {
  it("creates a bundle by tag, lists it with its MCP URL, and deletes it", async () => {
    const t = await freshTenant();
    const name = `maths-${randomUUID().slice(0, 6)}`;
    const row = page.locator(`tr[data-bundle='${name}']`);
    try {
      await openBundles(t.admin);
      await page.getByText("No bundles yet").waitFor(SOON);
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Tags").fill("maths");
      await page.getByLabel("Discovery").selectOption("list");
      await page.getByRole("button", { name: "Create bundle" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Created bundle ${name}` })
        .waitFor(SOON);
      await row.waitFor(SOON);
      expect(await row.locator("[data-selector]").allTextContents()).toEqual(["tags: maths"]);
      expect(await row.locator(".discovery").textContent()).toBe("list");
      expect(await row.locator("code.mcp-url").textContent()).toBe(`${baseUrl}/mcp/${name}`);
      // Its name typed again: the form now replaces it.
      await page.getByRole("button", { name: "Replace bundle" }).waitFor();
      expect(await unlabeledControls(page)).toEqual([]);
      await screenshot(page, "bundles");

      // The tenant's MCP clients get it there: math.evaluate's manifest carries the maths tag.
      expect(await listedAt(name, t.agent)).toContain("math.evaluate");

      page.once("dialog", (d) => void d.dismiss());
      await page.getByRole("button", { name: `Delete bundle ${name}` }).click();
      expect(await row.count()).toBe(1);
      page.once("dialog", (d) => void d.accept());
      await page.getByRole("button", { name: `Delete bundle ${name}` }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Deleted bundle ${name}` })
        .waitFor(SOON);
      await expect.poll(() => row.count(), SOON).toBe(0);
      const gone = await fetch(`${baseUrl}/v1/bundles/${name}`, { headers: bearer(t.admin) });
      expect(gone.status).toBe(404);
      expect(await listedAt(name, t.agent)).toBeInstanceOf(Error);
    } finally {
      await fetch(`${baseUrl}/v1/bundles/${name}`, { method: "DELETE", headers: bearer(t.admin) });
      await t.remove();
    }
  });

  it("shows an agent's key the API's refusal, and no form", async () => {
    const t = await freshTenant();
    try {
      await openBundles(t.agent);
      const problem = page.locator(".problem[role='alert']");
      await problem.waitFor(SOON);
      expect(await problem.textContent()).toContain("tenant_admin");
      expect(await problem.locator("code").textContent()).toBe("forbidden");
      expect(await page.getByRole("button", { name: "Create bundle" }).count()).toBe(0);
    } finally {
      await t.remove();
    }
  });
});

describe("trt bundles", () => {
  it("puts, lists, shows and removes a tenant's bundle; an agent's key is refused (3)", async () => {
    const t = await freshTenant();
    const name = `cli-${randomUUID().slice(0, 6)}`;
    const asTenantAdmin = { env: { TRT_KEY: t.admin } };
    try {
      const put = await trt(["bundles", "put", name, "--tags", "maths", "--discovery", "search"], asTenantAdmin);
      expect(put).toMatchObject({ code: 0, stderr: `✓ created bundle ${name}\n` });
      expect(put.stdout).toContain(`  mcp      ${baseUrl}/mcp/${name}\n`);
      const again = await trt(["bundles", "put", name, "--tools", "math.evaluate,json.query"], asTenantAdmin);
      expect(again).toMatchObject({ code: 0, stderr: `✓ replaced bundle ${name}\n` });

      const list = await trt(["bundles", "list"], asTenantAdmin);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(
        new RegExp(`^${name} +list +json\\.query,math\\.evaluate +- +- +- +${baseUrl}/mcp/${name}$`, "m"),
      );
      const shown = JSON.parse((await trt(["bundles", "show", name, "--json"], asTenantAdmin)).stdout);
      expect(shown).toMatchObject({ name, tools: ["json.query", "math.evaluate"], tags: [], discovery: "list" });

      const refused = await trt(["bundles", "list"], { env: { TRT_KEY: t.agent } });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain("tenant_admin");

      expect(await trt(["bundles", "remove", name], asTenantAdmin)).toMatchObject({
        code: 0,
        stdout: `✓ removed bundle ${name}\n`,
      });
      expect((await trt(["bundles", "show", name], asTenantAdmin)).code).toBe(3);
    } finally {
      await fetch(`${baseUrl}/v1/bundles/${name}`, { method: "DELETE", headers: bearer(t.admin) });
      await t.remove();
    }
  });
});
