import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ExecutionView } from "../../src/contract.ts";

const auth = { authorization: `Bearer ${env.DEV_API_KEY}` };

async function post(body: unknown): Promise<{ status: number; json: any }> {
  const res = await exports.default.fetch("http://localhost/v1/executions", {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe("the pipeline in workerd", () => {
  it("runs math.evaluate through a provider Worker and fills the execution block", async () => {
    // A generous budget: the first call of a file also loads the Worker (vitest.config.ts).
    const { status, json } = await post({
      tool: "math.evaluate",
      input: { expression: "1 + 2 * 3" },
      limits: { timeout_ms: 20_000 },
    });
    expect(status).toBe(200);
    const view = json as ExecutionView;
    expect(view).toMatchObject({ tool: "math.evaluate", version: "1.0.0", status: "succeeded", output: { value: 7 } });
    expect(view.execution).toMatchObject({
      sandbox: "v8-isolate",
      worker: "std",
      resources: { cpu_ms: null, peak_memory_mb: null },
    });
    // Ran at the edge (the fast path): its id says so (src/execution/ids.ts).
    expect(view.execution_id).toMatch(/^exec_e[0-9a-f]{44}$/);
  });

  it("answers GET /v1/executions/{id} with the same result the call answered", async () => {
    const { json } = await post({
      tool: "math.evaluate",
      input: { expression: "6*7" },
      limits: { timeout_ms: 20_000 },
    });
    const res = await exports.default.fetch(`http://localhost/v1/executions/${json.execution_id}`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(json);
  });

  it("answers an id it never minted with execution_not_found", async () => {
    const res = await exports.default.fetch(`http://localhost/v1/executions/exec_${"0".repeat(64)}`, { headers: auth });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("execution_not_found");
  });

  it("lists every example tool from the registry", async () => {
    const res = await exports.default.fetch("http://localhost/v1/tools", { headers: auth });
    const body = (await res.json()) as { tools: { name: string; providers: string[] }[] };
    const names = body.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "math.evaluate",
        "text.stats",
        "json.query",
        "http.request",
        "demo.countdown",
        "lab.echo",
      ]),
    );
    // docs/contract.md#ranking: the system provider outranks the community one.
    expect(body.tools.find((t) => t.name === "text.stats")!.providers).toEqual(["std", "community"]);
  });

  it("is ready once the registry has loaded and every provider answers", async () => {
    const res = await exports.default.fetch("http://localhost/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
    const report = await exports.default.fetch("http://localhost/v1/admin/readiness", {
      headers: { authorization: `Bearer ${env.DEV_ADMIN_KEY}` },
    });
    const body = (await report.json()) as {
      status: string;
      problems: unknown[];
      providers: { name: string; reachable: boolean }[];
    };
    expect(body).toMatchObject({ status: "ready", problems: [] });
    // Every provider the configuration names answered its manifest.
    const configured = (env.PROVIDERS as unknown as { name: string }[]).map((p) => p.name);
    expect(body.providers).toEqual(configured.map((name) => ({ name, reachable: true })));
  });

  // In workerd directly: through wrangler dev's local proxy an early answer to a body still
  // being uploaded races the upload (EPIPE or a stall on the client), which would make the
  // e2e version of this test flaky without saying anything about the runtime.
  it("refuses a streamed body over the limit without a Content-Length (413)", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await exports.default.fetch("http://localhost/v1/executions", {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });
});
