/**
 * http.request end to end: the real std provider under wrangler dev reaches a
 * loopback HTTP server this file starts, on the one port the e2e stack allow-lists
 * (EGRESS_ALLOW, set by global-setup for this stack only; shipped configs keep it empty, see
 * test/unit/providers/std/shipped-config.test.ts). Redirects and the caller's capability still apply.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asAdmin, bearer, call, execute } from "./http.ts";
import { provided } from "./stack.ts";

const port = provided("egressPort");
const origin = `http://127.0.0.1:${port}`;

/** What the loopback server saw, newest last. */
const seen: { method: string; path: string; body: string }[] = [];
let server: Server;

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? "/";
    seen.push({ method: req.method ?? "", path, body });
    const redirect = (location: string) => res.writeHead(302, { location }).end();
    if (path.startsWith("/hello"))
      res.writeHead(200, { "content-type": "text/plain", "x-served-by": "e2e-loopback" }).end("hello from loopback");
    else if (path === "/echo") res.writeHead(201, { "content-type": "text/plain" }).end(`${req.method} ${body}`);
    else if (path === "/same-host-redirect") redirect("/hello?after=redirect");
    else if (path === "/cross-host-redirect") redirect("https://example.com/elsewhere");
    else if (path === "/private-redirect") redirect("http://10.0.0.1/admin");
    else if (path === "/metadata-redirect") redirect("http://169.254.169.254/latest/meta-data/");
    else if (path === "/other-port-redirect") redirect(`http://127.0.0.1:${port + 1}/`);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** Requests the server saw for `path` since `from` (an index into `seen`). */
const hits = (from: number, path: string) => seen.slice(from).filter((r) => r.path === path);

describe("http.request through the egress allow-list", () => {
  it("fetches from the allow-listed loopback server", async () => {
    const from = seen.length;
    const res = await execute({ tool: "http.request", input: { url: `${origin}/hello` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "succeeded",
      output: {
        status_code: 200,
        body: "hello from loopback",
        truncated: false,
        headers: { "x-served-by": "e2e-loopback" },
      },
    });
    expect(hits(from, "/hello")).toHaveLength(1);
  });

  it("sends the method and body", async () => {
    const res = await execute({ tool: "http.request", input: { url: `${origin}/echo`, method: "POST", body: "ping" } });
    expect(res.body.output).toMatchObject({ status_code: 201, body: "POST ping" });
  });

  it("follows a redirect on the same host", async () => {
    const from = seen.length;
    const res = await execute({ tool: "http.request", input: { url: `${origin}/same-host-redirect` } });
    expect(res.body.output).toMatchObject({ status_code: 200, body: "hello from loopback" });
    expect(seen.slice(from).map((r) => r.path)).toEqual(["/same-host-redirect", "/hello?after=redirect"]);
  });

  it("hands a redirect to another host back without following it", async () => {
    const res = await execute({ tool: "http.request", input: { url: `${origin}/cross-host-redirect` } });
    expect(res.status).toBe(200);
    expect(res.body.output).toMatchObject({ status_code: 302, headers: { location: "https://example.com/elsewhere" } });
  });

  it.each([
    ["/private-redirect", "redirect_private"],
    ["/metadata-redirect", "redirect_cloud_metadata"],
    ["/other-port-redirect", "redirect_loopback"],
  ])("refuses the redirect from %s (%s) as a tool_error", async (path, reason) => {
    const res = await execute({ tool: "http.request", input: { url: `${origin}${path}` } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: "failed", error: { code: "tool_error", details: { reason } } });
  });

  it("refuses another loopback port: the allow-list names one host:port", async () => {
    const res = await execute({ tool: "http.request", input: { url: `http://127.0.0.1:${port + 1}/hello` } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "tool_error", details: { reason: "loopback" } });
  });

  it("still needs the caller's network capability for the host", async () => {
    const tenant = `egress-${crypto.randomUUID()}`;
    const elsewhere = (
      await asAdmin("POST", "/v1/admin/keys", {
        tenant,
        agent: "dev-agent",
        capabilities: ["network:api.example.com"],
        channels: ["*"],
      })
    ).body.key;
    const from = seen.length;
    const denied = await call(
      "POST",
      "/v1/executions",
      { tool: "http.request", input: { url: `${origin}/hello` } },
      bearer(elsewhere),
    );
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toMatchObject({ level: 3, required: "network:127.0.0.1" });
    expect(hits(from, "/hello")).toHaveLength(0);

    const granted = (
      await asAdmin("POST", "/v1/admin/keys", {
        tenant,
        agent: "dev-agent",
        capabilities: ["network:127.0.0.1"],
        channels: ["*"],
      })
    ).body.key;
    const allowed = await call(
      "POST",
      "/v1/executions",
      { tool: "http.request", input: { url: `${origin}/hello` } },
      bearer(granted),
    );
    expect(allowed.status).toBe(200);
    expect(hits(from, "/hello")).toHaveLength(1);
  });
});
