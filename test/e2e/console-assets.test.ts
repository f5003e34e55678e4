/**
 * The console is static assets beside the Worker (wrangler.jsonc "assets"): it is served at
 * /console/ with its CSP, the API reference page at /docs/, and no asset can shadow the
 * Worker's own paths.
 */
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, baseUrl, bearer, DEV_KEY } from "./http.ts";

describe("the console's static assets", () => {
  it("serves /console/ with a CSP that allows only its own origin, and its files from the same folder", async () => {
    const res = await fetch(`${baseUrl}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await res.text();
    // Every file the page loads (a `data:` URL is inline: nothing is fetched for it).
    const scripts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1])
      .filter((u) => !u.startsWith("data:"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith("/console/")).toBe(true); // nothing from elsewhere
      expect((await fetch(`${baseUrl}${src}`)).status).toBe(200);
    }
  });

  it("serves the API reference page at /docs/, built from the document /v1/openapi.json serves", async () => {
    const res = await fetch(`${baseUrl}/docs/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    expect(html).toContain(doc.paths["/v1/executions"].post.summary);
    expect(html).toContain('<section class="operation" id="createExecution">');
    expect(html).not.toContain("<script");
    expect((await fetch(`${baseUrl}/docs/style.css`)).status).toBe(200);
    const bare = await fetch(`${baseUrl}/docs`, { redirect: "manual" });
    expect(new URL(bare.headers.get("location")!, baseUrl).pathname).toBe("/docs/");
  });

  it("redirects / and /console to the console", async () => {
    const root = await fetch(`${baseUrl}/`, { redirect: "manual" });
    expect([301, 302, 307, 308]).toContain(root.status);
    expect(new URL(root.headers.get("location")!, baseUrl).pathname).toBe("/console/");
    const bare = await fetch(`${baseUrl}/console`, { redirect: "manual" });
    expect(new URL(bare.headers.get("location")!, baseUrl).pathname).toBe("/console/");
  });

  it("leaves /v1, /metrics, /healthz, /readyz and the Connect paths to the Worker", async () => {
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${baseUrl}/v1/tools`, { headers: bearer(DEV_KEY) })).json()).toHaveProperty("tools");
    expect((await fetch(`${baseUrl}/v1/tools`)).status).toBe(401);
    expect((await fetch(`${baseUrl}/metrics`, { headers: bearer(ADMIN_KEY) })).headers.get("content-type")).toContain(
      "text/plain",
    );
    const connect = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/ListTools`, {
      method: "POST",
      headers: { ...bearer(DEV_KEY), "content-type": "application/json" },
      body: "{}",
    });
    expect(connect.status).toBe(200);
    // A path that is neither an asset nor a route is the Worker's JSON 404, not a page.
    const missing = await fetch(`${baseUrl}/console-not-here`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});
