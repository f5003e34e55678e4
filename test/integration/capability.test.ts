import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RuntimeError } from "../../src/errors.ts";
import type { Caller } from "../../src/pipeline/capability.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { verifyInBackground } from "../../src/pipeline/intent.ts";
import { planExecution } from "../../src/pipeline/plan.ts";

function caller(over: Partial<Caller>): Caller {
  return { tenant: `t-${crypto.randomUUID()}`, agent: "tester", capabilities: [], channels: ["*"], ...over };
}

async function denial(c: Caller, body: unknown): Promise<RuntimeError> {
  try {
    await planExecution(env, c, parseExecutionRequest(body), Date.now());
  } catch (err) {
    return err as RuntimeError;
  }
  throw new Error("expected a denial");
}

describe("capability stage against the live registry", () => {
  it("refuses http.request at level 3 to a caller without a network grant for the host", async () => {
    const err = await denial(caller({ agent: "order-assistant", capabilities: ["network:other.example"] }), { tool: "http.request", input: { url: "https://api.example.com/x" } });
    expect(err.code).toBe("forbidden");
    expect(err.details).toMatchObject({ level: 3, required: "network:api.example.com" });
  });

  it("grants http.request to a caller holding that host", async () => {
    const plan = await planExecution(env, caller({ agent: "order-assistant", capabilities: ["network:api.example.com"] }), parseExecutionRequest({ tool: "http.request", input: { url: "https://api.example.com/x" } }), Date.now()).then((p) => p.plan);
    expect(plan.capability.level3).toEqual({ required: "network:api.example.com", granted_by: "network:api.example.com" });
  });

  it("filters unreachable providers before ranking (level 1)", async () => {
    const plan = await planExecution(env, caller({ channels: ["community"] }), parseExecutionRequest({ tool: "text.stats", input: { text: "a b" } }), Date.now()).then((p) => p.plan);
    expect(plan.providers.map((p) => p.provider)).toEqual(["community"]);
  });

  it("refuses a tool whose every provider is out of the caller's channels (level 1)", async () => {
    const err = await denial(caller({ channels: ["community"] }), { tool: "math.evaluate", input: { expression: "1" } });
    expect(err.code).toBe("forbidden");
    expect(err.details).toMatchObject({ level: 1 });
  });

  it("refuses a body naming another tenant", async () => {
    const err = await denial(caller({}), { tool: "math.evaluate", tenant: "not-mine", input: { expression: "1" } });
    expect(err.code).toBe("forbidden");
  });

  describe("level 2, intent verification", () => {
    const httpCall = { tool: "http.request", input: { url: "https://api.example.com/x" } };

    it("blocks a send tool synchronously when the call does not fit the agent's profile", async () => {
      const err = await denial(caller({ agent: "research-assistant", capabilities: ["network:*"] }), httpCall);
      expect(err.code).toBe("forbidden");
      expect(err.details).toMatchObject({ level: 2, profile: "research-assistant" });
    });

    it("lets a send tool through synchronously when it fits", async () => {
      const { plan } = await planExecution(env, caller({ agent: "order-assistant", capabilities: ["network:*"] }), parseExecutionRequest(httpCall), Date.now());
      expect(plan.capability.level2).toMatchObject({ verdict: "aligned", mode: "sync", profile: "order-assistant" });
    });

    it("verifies a read-only tool in the background without blocking, even when misaligned", async () => {
      const { plan } = await planExecution(env, caller({ agent: "research-assistant" }), parseExecutionRequest({ tool: "lab.echo", input: {} }), Date.now());
      expect(plan.capability.level2).toMatchObject({ verdict: "pending", mode: "async" });
      expect(plan.intent_request).toMatchObject({ agent: "research-assistant", tool: "lab.echo", effects: "read" });
      expect(await verifyInBackground(env, plan.intent_request!)).toMatchObject({ verdict: "misaligned", mode: "async" });
    });

    it("is skipped, leaving levels 1 and 3 to decide, when no verifier is bound", async () => {
      const unbound = { ...env, INTENT_VERIFIER: undefined };
      const { plan } = await planExecution(unbound, caller({ agent: "research-assistant", capabilities: ["network:*"] }), parseExecutionRequest(httpCall), Date.now());
      expect(plan.capability.level2).toMatchObject({ verdict: "skipped", mode: "none" });
    });
  });
});
