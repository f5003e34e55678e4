import { afterEach, describe, expect, it, vi } from "vitest";
import { ToolError, type ToolContext } from "../../../../providers/sdk/define.ts";
import { egressPolicyFrom } from "../../../../providers/std/src/tools/egress-policy.ts";
import { httpRequest, httpRequestTool } from "../../../../providers/std/src/tools/http-request.ts";

// No real network: `fetch` is replaced by a scripted upstream for each test.
type Upstream = (url: URL, init: RequestInit) => Response | Promise<Response>;

function scriptedFetch(upstream: Upstream) {
  const requests: { url: string; method: string; headers: Headers; body: unknown }[] = [];
  const fetch = vi.fn(async (input: URL, init: RequestInit) => {
    requests.push({
      url: input.href,
      method: String(init.method),
      headers: new Headers(init.headers),
      body: init.body,
    });
    return upstream(input, init);
  });
  vi.stubGlobal("fetch", fetch);
  return { fetch, requests };
}

function context(): { ctx: ToolContext; controller: AbortController } {
  const controller = new AbortController();
  const ctx: ToolContext = {
    emit: () => {},
    signal: controller.signal,
    remainingMs: () => 30_000,
    caller: { tenant: "t", agent: "a" },
    executionId: `exec_${crypto.randomUUID()}`,
    context: {},
  };
  return { ctx, controller };
}

const redirect = (status: number, location: string) => new Response(null, { status, headers: { location } });
const request = (input: Parameters<typeof httpRequest.handler>[0]) => httpRequest.handler(input, context().ctx);

async function toolError(run: () => unknown): Promise<ToolError> {
  const err = await Promise.resolve()
    .then(run)
    .then(
      () => new Error("expected a ToolError"),
      (e: unknown) => e,
    );
  if (!(err instanceof ToolError)) throw err;
  return err;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("http.request against a scripted upstream", () => {
  it("returns status, headers and body", async () => {
    scriptedFetch(() => new Response("hello", { status: 201, headers: { "content-type": "text/plain", "x-id": "7" } }));
    const output = await request({ url: "https://api.example.com/items", method: "POST", body: "{}" });
    expect(output).toEqual({
      status_code: 201,
      headers: { "content-type": "text/plain", "x-id": "7" },
      body: "hello",
      truncated: false,
    });
  });

  it("refuses a GET that carries a body", async () => {
    const { fetch } = scriptedFetch(() => new Response("unreachable"));
    const err = await toolError(() => request({ url: "https://api.example.com/", body: "x" }));
    expect(err.details).toEqual({ reason: "body_not_allowed" });
    expect(fetch).not.toHaveBeenCalled();
  });

  it("refuses a redirect into loopback without following it", async () => {
    const { fetch } = scriptedFetch(() => redirect(302, "http://127.0.0.1:8080/admin"));
    const err = await toolError(() => request({ url: "https://api.example.com/" }));
    expect(err.details).toEqual({ reason: "redirect_loopback" });
    expect(err.code).toBe("redirect_refused");
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("refuses a same-host redirect onto a port outside the egress policy", async () => {
    const { fetch } = scriptedFetch(() => redirect(302, "https://api.example.com:8443/"));
    const err = await toolError(() => request({ url: "https://api.example.com/" }));
    expect(err).toMatchObject({ code: "redirect_refused", details: { reason: "redirect_port_not_allowed" } });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("reaches an allow-listed loopback host:port, and only that one, under a test policy", async () => {
    const tool = httpRequestTool(egressPolicyFrom({ EGRESS_ALLOW: "127.0.0.1:9999" }));
    const { requests } = scriptedFetch((url) =>
      url.pathname === "/a" ? redirect(302, "http://127.0.0.1:9998/") : new Response("ok"),
    );
    expect(await tool.handler({ url: "http://127.0.0.1:9999/b" }, context().ctx)).toMatchObject({
      status_code: 200,
      body: "ok",
    });
    const err = await toolError(() => tool.handler({ url: "http://127.0.0.1:9999/a" }, context().ctx));
    expect(err).toMatchObject({ code: "redirect_refused", details: { reason: "redirect_loopback" } });
    expect(requests.map((r) => r.url)).toEqual(["http://127.0.0.1:9999/b", "http://127.0.0.1:9999/a"]);
  });

  it("declares every code it throws", () => {
    const declared = httpRequest.manifest.error_codes!.map((c) => c.code);
    expect(declared).toEqual(
      expect.arrayContaining([
        "invalid_url",
        "target_refused",
        "redirect_refused",
        "too_many_redirects",
        "body_not_allowed",
        "invalid_header",
        "network_error",
      ]),
    );
  });

  it("refuses a redirect to the metadata address spelled in decimal", async () => {
    scriptedFetch(() => redirect(301, "http://2852039166/latest/meta-data/"));
    const err = await toolError(() => request({ url: "https://api.example.com/" }));
    expect(err.details).toEqual({ reason: "redirect_cloud_metadata" });
  });

  it("follows a relative redirect and turns a POST into a GET on 303", async () => {
    const { requests } = scriptedFetch((url) =>
      url.pathname === "/submit" ? redirect(303, "/done") : new Response("done"),
    );
    const output = await request({ url: "https://api.example.com/submit", method: "POST", body: "form" });
    expect(output.body).toBe("done");
    expect(requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "https://api.example.com/submit", "form"],
      ["GET", "https://api.example.com/done", undefined],
    ]);
  });

  it("keeps the method and body on 307", async () => {
    const { requests } = scriptedFetch((url) => (url.pathname === "/a" ? redirect(307, "/b") : new Response("ok")));
    await request({ url: "https://api.example.com/a", method: "PUT", body: "data" });
    expect(requests[1]).toMatchObject({ method: "PUT", url: "https://api.example.com/b", body: "data" });
  });

  it("hands a redirect to another host back instead of following it", async () => {
    const { requests } = scriptedFetch((url) =>
      url.host === "api.example.com" ? redirect(302, "https://cdn.example.net/x") : new Response("ok"),
    );
    const output = await request({ url: "https://api.example.com/" });
    expect(requests).toHaveLength(1);
    expect(output).toMatchObject({ status_code: 302, headers: { location: "https://cdn.example.net/x" } });
  });

  it("drops credentials when a same-host redirect changes the origin", async () => {
    const { requests } = scriptedFetch((url) =>
      url.protocol === "http:" ? redirect(301, "https://api.example.com/") : new Response("ok"),
    );
    await request({
      url: "http://api.example.com/",
      headers: { authorization: "Bearer secret", accept: "text/plain" },
    });
    expect(requests[0].headers.get("authorization")).toBe("Bearer secret");
    expect(requests[1].headers.get("authorization")).toBeNull();
    expect(requests[1].headers.get("accept")).toBe("text/plain");
  });

  it("gives up after 5 redirects", async () => {
    let hop = 0;
    const { fetch } = scriptedFetch(() => redirect(302, `/hop/${++hop}`));
    const err = await toolError(() => request({ url: "https://api.example.com/" }));
    expect(err.details).toEqual({ reason: "too_many_redirects" });
    expect(fetch).toHaveBeenCalledTimes(6);
  });

  it("cuts the body at 1 MiB and says so", async () => {
    const chunk = new Uint8Array(256 * 1024).fill(0x61);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(chunk);
        controller.enqueue(new Uint8Array([0x62]));
        controller.close();
      },
    });
    scriptedFetch(() => new Response(stream));
    const output = await request({ url: "https://api.example.com/big" });
    expect(output.truncated).toBe(true);
    expect(output.body.length).toBe(1024 * 1024);
    expect(output.body.endsWith("a")).toBe(true);
  });

  it("does not call a body of exactly 1 MiB truncated", async () => {
    scriptedFetch(() => new Response("a".repeat(1024 * 1024)));
    const output = await request({ url: "https://api.example.com/exact" });
    expect(output).toMatchObject({ truncated: false });
    expect(output.body.length).toBe(1024 * 1024);
  });

  it("drops a character cut in half at the limit instead of mangling it", async () => {
    // 1 MiB - 1 bytes of "a", then "é" (2 bytes): only its first byte fits.
    scriptedFetch(() => new Response("a".repeat(1024 * 1024 - 1) + "é"));
    const output = await request({ url: "https://api.example.com/utf8" });
    expect(output.truncated).toBe(true);
    expect(output.body).toBe("a".repeat(1024 * 1024 - 1));
  });

  it("returns no body for HEAD", async () => {
    scriptedFetch(() => new Response(null, { status: 204, headers: { "content-length": "0" } }));
    expect(await request({ url: "https://api.example.com/", method: "HEAD" })).toMatchObject({
      status_code: 204,
      body: "",
      truncated: false,
    });
  });

  it("reports a network failure as a retryable ToolError", async () => {
    scriptedFetch(() => Promise.reject(new TypeError("connection reset")));
    const err = await toolError(() => request({ url: "https://api.example.com/" }));
    expect(err).toMatchObject({ retryable: true, details: { reason: "network_error" } });
  });

  it("lets cancellation surface as the abort, not as a ToolError", async () => {
    const { ctx, controller } = context();
    scriptedFetch(
      (_url, init) =>
        new Promise((_resolve, reject) => init.signal!.addEventListener("abort", () => reject(init.signal!.reason))),
    );
    const reason = new DOMException("cancelled", "AbortError");
    const pending = httpRequest.handler({ url: "https://api.example.com/slow" }, ctx);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
