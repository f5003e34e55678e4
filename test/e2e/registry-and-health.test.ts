import { describe, expect, it } from "vitest";
import { call } from "./http.ts";

describe("registry view and health", () => {
  it("lists every example tool", async () => {
    const res = await call("GET", "/v1/tools");
    expect(res.status).toBe(200);
    const names = res.body.tools.map((t: { name: string }) => t.name);
    for (const name of [
      "math.evaluate",
      "text.stats",
      "json.query",
      "http.request",
      "demo.countdown",
      "lab.echo",
      "lab.bad_output",
      "lab.crash",
      "lab.stall",
    ]) {
      expect(names).toContain(name);
    }
  });

  it("describes one tool with its versions, providers and schemas", async () => {
    const res = await call("GET", "/v1/tools/text.stats");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "text.stats", active_version: "1.0.0" });
    const providers = res.body.versions[0].providers;
    expect(providers.map((p: { provider: string; trust: string }) => [p.provider, p.trust])).toEqual([
      ["std", "system"],
      ["community", "community"],
    ]);
    expect(providers[0]).toMatchObject({
      coercion: "lenient",
      latency_class: "fast",
      input_schema: { type: "object" },
      output_schema: { type: "object" },
    });
  });

  it("shows http.request's capability template", async () => {
    const res = await call("GET", "/v1/tools/http.request");
    expect(res.body.versions[0].providers[0]).toMatchObject({
      capability_required: "network:{url.host}",
      effects: "send",
      idempotent: false,
    });
  });

  it("answers an unknown tool with tool_not_found", async () => {
    const res = await call("GET", "/v1/tools/nope");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("tool_not_found");
  });

  it("is alive and ready", async () => {
    expect((await call("GET", "/healthz")).body).toEqual({ status: "ok" });
    const ready = await call("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready" });
  });
});
