/**
 * The client's bundle methods (client/bundles.ts): which route each one asks, with which body,
 * whose tenant, whether a put created the bundle, and that puts and deletes may be retried.
 * The real routes answer them in test/e2e/bundles-ui.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createClient, RequestError } from "../../../client/index.ts";
import { envelope, ok, scripted } from "./fake-runtime.ts";

const stored = {
  name: "research",
  description: null,
  tools: [],
  prefixes: [],
  channels: [],
  tags: ["maths"],
  discovery: "list",
  updated_at: "2026-12-01T10:00:00.000Z",
};
const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const client = (fetch: typeof globalThis.fetch) =>
  createClient({ baseUrl: "http://x.invalid/", apiKey: "trt_x", fetch, retries: { max: 2, baseMs: 0 } });

describe("the client's bundle methods", () => {
  it("ask a tenant's routes, naming the tenant only when given", async () => {
    const rt = scripted(ok({ bundles: [stored] }));
    const c = client(rt.fetch);
    expect(await c.listBundles()).toEqual({ bundles: [stored] });
    await c.listBundles({ tenant: "acme corp" });
    await c.getBundle("research", { tenant: "acme" });
    await c.deleteBundle("research");
    expect(rt.seen.map((s) => `${s.method} ${s.url.pathname}${s.url.search}`)).toEqual([
      "GET /v1/bundles",
      "GET /v1/bundles?tenant=acme+corp",
      "GET /v1/bundles/research?tenant=acme",
      "DELETE /v1/bundles/research",
    ]);
  });

  it("ask the operators' routes for the operators' bundles", async () => {
    const rt = scripted(ok({ bundles: [] }));
    const c = client(rt.fetch);
    await c.listOperatorBundles();
    await c.getOperatorBundle("research");
    await c.putOperatorBundle("research", { tags: ["maths"] });
    await c.deleteOperatorBundle("research");
    expect(rt.seen.map((s) => `${s.method} ${s.url.pathname}${s.url.search}`)).toEqual([
      "GET /v1/admin/bundles",
      "GET /v1/admin/bundles/research",
      "PUT /v1/admin/bundles/research",
      "DELETE /v1/admin/bundles/research",
    ]);
  });

  it("put the spec as the body and say whether it created (201) or replaced (200) the bundle", async () => {
    const rt = scripted(answer(201, stored), answer(200, stored));
    const c = client(rt.fetch);
    expect(await c.putBundle("research", { tags: ["maths"], discovery: "list" }, { tenant: "acme" })).toEqual({
      bundle: stored,
      created: true,
    });
    expect(await c.putBundle("research", { tags: ["maths"] })).toEqual({ bundle: stored, created: false });
    expect(rt.seen[0]).toMatchObject({ method: "PUT", body: { tags: ["maths"], discovery: "list" } });
    expect(rt.seen[0].url.search).toBe("?tenant=acme");
  });

  it("retry a put and a delete after a retryable failure (neither can take effect twice), never a refusal", async () => {
    const busy = () => envelope("overloaded", "runtime_error", true, 503);
    const rt = scripted(busy(), answer(201, stored), busy(), ok({ name: "research", deleted: true }));
    const c = client(rt.fetch);
    expect((await c.putBundle("research", { tags: ["maths"] })).created).toBe(true);
    expect(await c.deleteBundle("research")).toEqual({ name: "research", deleted: true });
    expect(rt.seen.map((s) => s.method)).toEqual(["PUT", "PUT", "DELETE", "DELETE"]);

    const refused = scripted(envelope("invalid_request", "request_error", false, 400, { details: { field: "tags" } }));
    const err = await client(refused.fetch)
      .putBundle("research", { tags: ["Not A Tag"] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect(err).toMatchObject({ code: "invalid_request", details: { field: "tags" } });
    expect(refused.seen).toHaveLength(1);
  });
});
