/**
 * The registry's cold-start rule (docs/architecture.md, "The registry"): a registry that has not
 * loaded its providers loads them before it applies an operator's change or answers anything
 * that reads the catalog, and it never gives out a snapshot with fewer tools than it last gave
 * out unless a completed load or an operator's removal explains it.
 *
 * Each test runs the runtime Worker (its real routes, its real snapshot cache) against a
 * registry object that has never been used: the Worker's REGISTRY namespace names a fresh
 * object wherever the Worker asks for "registry". The operator's change is the very first
 * request that registry serves; then a sync call and the tool list must see the whole catalog.
 */
import {
  createExecutionContext,
  evictDurableObject,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RegistryObject } from "../../durable-objects/registry-object.ts";
import worker from "../../src/index.ts";
import { REGISTRY_NAME } from "../../src/object-stubs.ts";
import { CACHE_NAME, forgetSnapshot, SNAPSHOT_URL } from "../../src/registry/snapshot-cache.ts";

const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };
const caller = { authorization: `Bearer ${env.DEV_API_KEY}` };

/** The tools a registry serves once it has loaded (read from a registry of its own). */
let fullCatalog: string[];

beforeAll(async () => {
  const loaded = await env.REGISTRY.get(env.REGISTRY.idFromName(`cold-ref-${crypto.randomUUID()}`)).refresh();
  fullCatalog = Object.keys(loaded.tools).sort();
  expect(fullCatalog).toContain("math.evaluate");
});

/** Neither this isolate nor the data center holds a copy: the Worker reads the registry it is given. */
async function forgetCopies(): Promise<void> {
  forgetSnapshot();
  await (await caches.open(CACHE_NAME)).delete(SNAPSHOT_URL);
}

afterEach(forgetCopies);

/**
 * A sync call's background work: its health sample waits up to FLUSH_MS (5 s) for the
 * isolate's batch (src/registry/health-reporter.ts). Waited for once, at the end of the file,
 * rather than 5 s in every test.
 */
const background: Promise<void>[] = [];
afterAll(() => Promise.all(background));

/** The runtime Worker, whose registry is a fresh object that nothing has asked anything yet. */
async function coldRuntime() {
  // An earlier test's background work first: a refresh of its snapshot still under way would
  // write its registry's copy back into the data center's entry after this test dropped it, and
  // this test's first reads would take that copy.
  await Promise.all(background.splice(0));
  await forgetCopies();
  const name = `cold-${crypto.randomUUID()}`;
  const REGISTRY = new Proxy(env.REGISTRY, {
    get(target, prop) {
      if (prop === "idFromName") return (n: string) => target.idFromName(n === REGISTRY_NAME ? name : n);
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const runtimeEnv = { ...env, REGISTRY };
  const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown, later = false) => {
    const ctx = createExecutionContext();
    const init = {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    const res = await worker.fetch(
      new Request(`http://localhost${path}`, init) as Request<unknown, IncomingRequestCfProperties>,
      runtimeEnv,
      ctx,
    );
    const text = await res.text();
    if (later) background.push(waitOnExecutionContext(ctx));
    else await waitOnExecutionContext(ctx);
    return { status: res.status, text, json: text === "" ? undefined : JSON.parse(text) };
  };
  return {
    registry: env.REGISTRY.get(env.REGISTRY.idFromName(name)),
    asAdmin: (method: string, path: string, body?: unknown) => send(method, path, admin, body),
    /** A sync call of math.evaluate, then the tool list: both must see the whole catalog. */
    async expectWholeCatalog() {
      const call = await send(
        "POST",
        "/v1/executions",
        caller,
        { tool: "math.evaluate", input: { expression: "6 * 7" }, limits: { timeout_ms: 20_000 } },
        true,
      );
      expect({ status: call.status, error: call.json?.error?.code }).toEqual({ status: 200, error: undefined });
      expect(call.json).toMatchObject({ status: "succeeded", output: { value: 42 } });
      const list = await send("GET", "/v1/tools", caller);
      expect(list.status).toBe(200);
      expect((list.json.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(fullCatalog);
    },
  };
}

describe("an operator's change as the very first request to a cold registry", () => {
  it("PATCH max_concurrency: loads first, answers the provider's view, and every tool still runs", async () => {
    const rt = await coldRuntime();
    const res = await rt.asAdmin("PATCH", "/v1/admin/providers/lab", { max_concurrency: 1 });
    expect(res.status).toBe(200);
    await rt.expectWholeCatalog();
    expect(res.json).toMatchObject({ name: "lab", reachable: true, max_concurrency: 1 });
    expect(res.json.tools).toBeGreaterThan(0);
  });

  it("PATCH trust", async () => {
    const rt = await coldRuntime();
    const res = await rt.asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "verified" });
    expect(res.json).toMatchObject({ name: "lab", trust: "verified", reachable: true });
    await rt.expectWholeCatalog();
  });

  it("PATCH disabled: true, then false", async () => {
    const rt = await coldRuntime();
    const disabled = await rt.asAdmin("PATCH", "/v1/admin/providers/lab", { disabled: true });
    expect(disabled.json).toMatchObject({ name: "lab", disabled: true, reachable: true });
    await rt.expectWholeCatalog();
    const enabled = await rt.asAdmin("PATCH", "/v1/admin/providers/lab", { disabled: false });
    expect(enabled.json).toMatchObject({ name: "lab", reachable: true });
    expect(enabled.json.disabled).toBeUndefined();
  });

  it("PATCH disabled: false (enable) as the first request", async () => {
    const rt = await coldRuntime();
    const res = await rt.asAdmin("PATCH", "/v1/admin/providers/std", { disabled: false });
    expect(res.json).toMatchObject({ name: "std", reachable: true });
    await rt.expectWholeCatalog();
  });

  it("DELETE a provider's health", async () => {
    const rt = await coldRuntime();
    const res = await rt.asAdmin("DELETE", "/v1/admin/providers/std/health");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: "std", reachable: true });
    await rt.expectWholeCatalog();
  });

  it("PUT and DELETE a version's deprecation", async () => {
    const rt = await coldRuntime();
    const put = await rt.asAdmin("PUT", "/v1/admin/tools/lab.echo/versions/1.0.0/deprecation", {
      sunset: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(put.status).toBe(200);
    await rt.expectWholeCatalog();
    expect((await rt.asAdmin("DELETE", "/v1/admin/tools/lab.echo/versions/1.0.0/deprecation")).status).toBe(200);
  });

  it("POST /v1/admin/upstreams (register an upstream), then DELETE it", async () => {
    const rt = await coldRuntime();
    const name = `cold-${crypto.randomUUID().slice(0, 8)}`;
    const res = await rt.asAdmin("POST", "/v1/admin/upstreams", {
      name,
      binding: "UPSTREAM_EXAMPLE",
      trust: "community",
      prefix: `${name}.`,
      tools: ["echo"],
      secret: "UPSTREAM_EXAMPLE_TOKEN",
      defaults: { latency_class: "fast", effects: "read", idempotent: true },
    });
    expect(res.status).toBe(201);
    expect(res.json.status).toMatchObject({ served: [`${name}.echo`] });
    const list = await rt.asAdmin("GET", "/v1/tools");
    expect((list.json.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(
      [...fullCatalog, `${name}.echo`].sort(),
    );
    expect((await rt.asAdmin("DELETE", `/v1/admin/upstreams/${name}`)).status).toBe(200);
    await rt.expectWholeCatalog();
  });

  it("DELETE an upstream that is not registered", async () => {
    const rt = await coldRuntime();
    expect((await rt.asAdmin("DELETE", "/v1/admin/upstreams/no-such-upstream")).status).toBe(404);
    await rt.expectWholeCatalog();
  });

  it("POST an upstream's refresh", async () => {
    const rt = await coldRuntime();
    expect((await rt.asAdmin("POST", "/v1/admin/upstreams/example/refresh")).status).toBe(200);
    await rt.expectWholeCatalog();
  });

  it("approve an upstream definition change (none is pending on a cold registry: 404)", async () => {
    const rt = await coldRuntime();
    const res = await rt.asAdmin("POST", "/v1/admin/upstreams/example/tools/mutable_echo/approve", {
      hash: "0".repeat(64),
    });
    expect(res.status).toBe(404);
    await rt.expectWholeCatalog();
  });

  it("POST /v1/admin/registry/refresh", async () => {
    const rt = await coldRuntime();
    const res = await rt.asAdmin("POST", "/v1/admin/registry/refresh");
    expect(res.json.tools).toBe(fullCatalog.length);
    await rt.expectWholeCatalog();
  });
});

describe("a cold registry driven over RPC", () => {
  it("applies setProvider to the loaded catalog: the answer holds every tool", async () => {
    const rt = await coldRuntime();
    const snap = await rt.registry.setProvider("lab", { max_concurrency: 1 });
    expect(Object.keys(snap!.tools).sort()).toEqual(fullCatalog);
    expect(snap!.providers.find((p) => p.name === "lab")).toMatchObject({ max_concurrency: 1 });
  });

  it("resetHealth of a cold registry answers the loaded catalog", async () => {
    const rt = await coldRuntime();
    const snap = await rt.registry.resetHealth("std");
    expect(Object.keys(snap!.tools).sort()).toEqual(fullCatalog);
  });

  it("gives out no shrunk snapshot that no load explains: the catalog lost under it, an operator's change answers the last one", async () => {
    const rt = await coldRuntime();
    const before = await rt.registry.snapshot();
    expect(Object.keys(before.tools).sort()).toEqual(fullCatalog);
    // The loaded catalog disappears (as if its row were lost); nothing reloads it yet.
    await runInDurableObject(rt.registry, async (_r: RegistryObject, state) => {
      state.storage.sql.exec("DELETE FROM catalog");
    });
    const answered = await rt.registry.setProvider("lab", { trust: "verified" });
    expect(Object.keys(answered!.tools).sort()).toEqual(fullCatalog);
    // A completed load explains whatever it finds: the next read loads and serves it all.
    const after = await rt.registry.snapshot();
    expect(Object.keys(after.tools).sort()).toEqual(fullCatalog);
    expect(after.version).toBeGreaterThan(before.version);
  });

  it("restarted, it answers a shrunk snapshot it holds back with a fresh load rather than the shrunk one", async () => {
    const rt = await coldRuntime();
    expect(Object.keys((await rt.registry.snapshot()).tools).sort()).toEqual(fullCatalog);
    // A new instance keeps what was given out last (durably) but holds no snapshot in memory.
    await evictDurableObject(rt.registry);
    await runInDurableObject(rt.registry, async (_r: RegistryObject, state) => {
      state.storage.sql.exec("DELETE FROM catalog");
    });
    const answered = await rt.registry.setProvider("lab", { max_concurrency: 2 });
    expect(Object.keys(answered!.tools).sort()).toEqual(fullCatalog);
    expect(answered!.providers.find((p) => p.name === "lab")).toMatchObject({ max_concurrency: 2 });
  });
});
