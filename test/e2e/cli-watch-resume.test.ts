/**
 * `trt watch` across a dropped connection: a loopback proxy in front of the runtime cuts the
 * first event stream after a few events; trt says so, resumes after the last event it
 * printed, and prints every event exactly once.
 */
import { createServer, request, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trt } from "./cli.ts";
import { baseUrl, call } from "./http.ts";

let proxy: Server;
let proxyUrl = "";
/** The executions whose first stream the proxy has cut: each test's evidence is its own id. */
const cut = new Set<string>();
const streamOf = (url: string) => /\/v1\/executions\/([^/?]+)\/stream/.exec(url)?.[1];

beforeAll(async () => {
  const target = new URL(baseUrl);
  proxy = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        const id = streamOf(req.url!);
        const cutThis = id !== undefined && !cut.has(id);
        let events = 0;
        let dropped = false;
        up.on("data", (chunk: Buffer) => {
          if (dropped) return;
          res.write(chunk);
          events += (chunk.toString().match(/^id: /gm) ?? []).length;
          if (cutThis && events >= 3) {
            dropped = true;
            cut.add(id);
            up.destroy();
            res.destroy(); // the connection drops mid-stream
          }
        });
        up.on("end", () => res.end());
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

describe("trt watch", () => {
  it("resumes after a dropped connection without losing or repeating an event", async () => {
    const started = await call("POST", "/v1/executions", {
      tool: "demo.countdown",
      mode: "async",
      input: { from: 5, interval_ms: 100 },
    });
    const run = await trt(["watch", started.body.execution_id, "--json"], { env: { TRT_URL: proxyUrl } });
    expect(cut.has(started.body.execution_id)).toBe(true);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1).type).toBe("done");
  });

  it("tells a person that it is reconnecting", async () => {
    const started = await call("POST", "/v1/executions", {
      tool: "demo.countdown",
      mode: "async",
      input: { from: 5, interval_ms: 100 },
    });
    const run = await trt(["watch", started.body.execution_id], { env: { TRT_URL: proxyUrl } });
    expect(cut.has(started.body.execution_id)).toBe(true);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/connection dropped; reconnecting \(try 1\) from event \d+/);
    expect(run.stdout).toMatch(/✓ .* succeeded/);
  });
});
