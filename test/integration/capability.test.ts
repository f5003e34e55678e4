import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RuntimeError } from "../../src/errors.ts";
import type { Caller } from "../../src/contract.ts";
import { traceFrom } from "../../src/audit/trace.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution as plan } from "../../src/pipeline/plan.ts";

function caller(over: Partial<Caller>): Caller {
  return { tenant: `t-${crypto.randomUUID()}`, agent: "tester", capabilities: [], channels: ["*"], ...over };
}

/** Stages 2-5 as a face would run them, with a background task list the test can wait for. */
const background: Promise<unknown>[] = [];
function planExecution(e: Env, c: Caller, request: ReturnType<typeof parseExecutionRequest>) {
  return plan(e, c, request, {
    acceptedAt: Date.now(),
    trace: traceFrom(undefined),
    face: "rest",
    executionId: `exec_test_${crypto.randomUUID()}`,
    waitUntil: (p) => background.push(p),
  });
}

async function denial(c: Caller, body: unknown): Promise<RuntimeError> {
  try {
    await planExecution(env, c, parseExecutionRequest(body));
  } catch (err) {
    return err as RuntimeError;
  }
  throw new Error("expected a denial");
}

describe("capability stage against the live registry", () => {
  it("refuses http.request at level 3 to a caller without a network grant for the host", async () => {
    const err = await denial(caller({ agent: "order-assistant", capabilities: ["network:other.example"] }), {
      tool: "http.request",
      input: { url: "https://api.example.com/x" },
    });
    expect(err.code).toBe("forbidden");
    expect(err.details).toMatchObject({ level: 3, required: "network:api.example.com" });
  });

  it("grants http.request to a caller holding that host", async () => {
    const plan = await planExecution(
      env,
      caller({ agent: "order-assistant", capabilities: ["network:api.example.com"] }),
      parseExecutionRequest({ tool: "http.request", input: { url: "https://api.example.com/x" } }),
    ).then((p) => p.plan);
    expect(plan.capability.level3).toEqual({
      required: "network:api.example.com",
      granted_by: "network:api.example.com",
    });
  });

  it("filters unreachable providers before ranking (level 1)", async () => {
    const plan = await planExecution(
      env,
      caller({ channels: ["community"] }),
      parseExecutionRequest({ tool: "text.stats", input: { text: "a b" } }),
    ).then((p) => p.plan);
    expect(plan.providers.map((p) => p.provider)).toEqual(["community"]);
  });

  it("answers a tool whose every provider is out of the caller's channels as one that does not exist (level 1)", async () => {
    const err = await denial(caller({ channels: ["community"] }), {
      tool: "math.evaluate",
      input: { expression: "1" },
    });
    const missing = await denial(caller({ channels: ["community"] }), {
      tool: "math.evaluatx",
      input: { expression: "1" },
    });
    expect(err.code).toBe("tool_not_found");
    expect({
      ...err.toBody(),
      message: err.message.replace("math.evaluate", "<t>"),
      details: { ...err.details, tool: "<t>" },
    }).toEqual({
      ...missing.toBody(),
      message: missing.message.replace("math.evaluatx", "<t>"),
      details: { ...missing.details, tool: "<t>" },
    });
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
      const { plan } = await planExecution(
        env,
        caller({ agent: "order-assistant", capabilities: ["network:*"] }),
        parseExecutionRequest(httpCall),
      );
      expect(plan.capability.level2).toMatchObject({ verdict: "aligned", mode: "sync", profile: "order-assistant" });
    });

    it("verifies a read-only tool in the background without blocking, then reuses the verdict for the same agent and tool", async () => {
      const who = caller({ agent: "research-assistant" });
      const first = await planExecution(env, who, parseExecutionRequest({ tool: "lab.echo", input: {} }));
      expect(first.plan.capability.level2).toMatchObject({ verdict: "pending", mode: "async" });
      await Promise.all(background.splice(0));
      const second = await planExecution(env, who, parseExecutionRequest({ tool: "lab.echo", input: {} }));
      // Misaligned, recorded, never blocking: the tool only reads.
      expect(second.plan.capability.level2).toMatchObject({ verdict: "misaligned", mode: "async", cached: true });
    });

    it("is skipped, leaving levels 1 and 3 to decide, when no verifier is bound", async () => {
      const unbound: Env = { ...env };
      Reflect.deleteProperty(unbound, "INTENT_VERIFIER");
      const { plan } = await planExecution(
        unbound,
        caller({ agent: "research-assistant", capabilities: ["network:*"] }),
        parseExecutionRequest(httpCall),
      );
      expect(plan.capability.level2).toMatchObject({ verdict: "skipped", mode: "none" });
    });
  });
});
