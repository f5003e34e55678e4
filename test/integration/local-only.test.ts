/**
 * A local development stack answers this machine only (src/auth/local-only.ts), through the
 * Worker's own fetch in workerd with the .dev.vars the test plugin reads (LOCAL_DEVELOPMENT=true).
 * A DNS-rebinding page's requests carry the page's Host and Origin; the well-known keys are
 * public, so from anywhere else they open nothing.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";

async function send(
  url: string,
  headers: Record<string, string>,
  e: Env = env,
  init: RequestInit = {},
): Promise<{ status: number; body: any }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(url, { ...init, headers }) as Request<unknown, IncomingRequestCfProperties>,
    e,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json() };
}

const devKey = { authorization: `Bearer ${env.DEV_API_KEY}` };
const refusedLocally = { status: 403, body: { error: { code: "forbidden", details: { reason: "local_only" } } } };

describe("a local development stack", () => {
  it("answers the well-known key from a loopback Host and a loopback page", async () => {
    expect((await send("http://127.0.0.1:8787/v1/tools", devKey)).status).toBe(200);
    expect((await send("http://localhost:8787/v1/tools", { ...devKey, origin: "http://localhost:5173" })).status).toBe(
      200,
    );
  });

  it("refuses another Host with 403 before any credential counts, on every route", async () => {
    expect(await send("http://attacker.example/v1/tools", devKey)).toMatchObject(refusedLocally);
    expect(
      await send("http://192.168.1.20:8787/metrics", { authorization: `Bearer ${env.DEV_ADMIN_KEY}` }),
    ).toMatchObject(refusedLocally);
    expect(await send("http://attacker.example/healthz", {})).toMatchObject(refusedLocally);
    expect(await send("http://localhost/v1/tools", { ...devKey, host: "attacker.example" })).toMatchObject(
      refusedLocally,
    );
  });

  it("refuses a page from another origin with 403: /v1 in the error envelope, /mcp as a JSON-RPC error", async () => {
    expect(
      await send("http://127.0.0.1:8787/v1/tools", { ...devKey, origin: "http://attacker.example" }),
    ).toMatchObject(refusedLocally);
    expect(await send("http://127.0.0.1:8787/v1/tools", { ...devKey, origin: "null" })).toMatchObject(refusedLocally);
    const mcp = await send(
      "http://127.0.0.1:8787/mcp",
      { ...devKey, origin: "http://attacker.example", "content-type": "application/json" },
      env,
      {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      },
    );
    expect(mcp).toMatchObject({
      status: 403,
      body: {
        jsonrpc: "2.0",
        error: { code: -32000, data: { error: { code: "forbidden", details: { reason: "local_only" } } } },
      },
    });
  });

  it("refuses a request whose connecting address is not loopback", async () => {
    expect(
      await send("http://127.0.0.1:8787/v1/tools", { ...devKey, "cf-connecting-ip": "203.0.113.7" }),
    ).toMatchObject(refusedLocally);
  });
});

describe("outside local development", () => {
  it("refuses to start with the upstream token key that .dev.vars publishes", async () => {
    // A deployment has no LOCAL_DEVELOPMENT; the generated Env types it as always present, so "" stands for unset.
    const deployed: Env = { ...env, LOCAL_DEVELOPMENT: "" };
    // Every request fails on the configuration: 500, the reason in the log (ConfigError).
    expect(await send("https://tools.example.com/v1/tools", devKey, deployed)).toMatchObject({
      status: 500,
      body: { error: { code: "internal" } },
    });
  });

  it("treats the well-known keys as unknown keys, from any Host", async () => {
    const deployed: Env = {
      ...env,
      LOCAL_DEVELOPMENT: "",
      UPSTREAM_TOKEN_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    };
    expect(await send("http://127.0.0.1:8787/v1/tools", devKey, deployed)).toMatchObject({
      status: 401,
      body: { error: { code: "unauthenticated" } },
    });
    expect(await send("https://tools.example.com/v1/tools", devKey, deployed)).toMatchObject({
      status: 401,
      body: { error: { code: "unauthenticated" } },
    });
  });
});
