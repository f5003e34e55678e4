import { describe, expect, it } from "vitest";
import profiles from "../../verifiers/intent/profiles.json";
import { globMatch, judgeIntent, parseProfiles } from "../../verifiers/intent/src/policy.ts";
import type { IntentRequest } from "../../verifiers/intent/src/protocol.ts";

const ask = (agent: string, tool: string, effects: IntentRequest["effects"]): IntentRequest => ({ tenant: "t", agent, tool, version: "1.0.0", effects, context: {} });
const shipped = parseProfiles(profiles);

describe("the example verifier's policy", () => {
  it("finds a call aligned when both its tool and its effect fit the agent's profile", () => {
    expect(judgeIntent(ask("research-assistant", "text.stats", "read"), shipped)).toMatchObject({ verdict: "aligned", profile: "research-assistant" });
    expect(judgeIntent(ask("order-assistant", "http.request", "send"), shipped).verdict).toBe("aligned");
  });

  it("finds a research agent sending something misaligned, naming what it is for", () => {
    const v = judgeIntent(ask("research-assistant", "http.request", "send"), shipped);
    expect(v.verdict).toBe("misaligned");
    expect(v.reason).toContain("may not send");
  });

  it("finds a tool outside the profile's list misaligned", () => {
    expect(judgeIntent(ask("order-assistant", "text.stats", "read"), shipped).verdict).toBe("misaligned");
  });

  it("judges an agent without a profile by the default profile: read only", () => {
    expect(judgeIntent(ask("stranger", "lab.echo", "read"), shipped)).toMatchObject({ verdict: "aligned", profile: "default" });
    expect(judgeIntent(ask("stranger", "lab.echo", "delete"), shipped)).toMatchObject({ verdict: "misaligned", profile: "default" });
  });

  it("matches tool patterns as globs, with dots taken literally", () => {
    expect(globMatch("text.*", "text.stats")).toBe(true);
    expect(globMatch("text.*", "textXstats")).toBe(false);
    expect(globMatch("*", "anything.at.all")).toBe(true);
    expect(globMatch("http.request", "http.requests")).toBe(false);
  });

  it("refuses a profile set that lacks purpose, effects or tools", () => {
    expect(() => parseProfiles({ bad: { purpose: "x", effects: ["read"] } })).toThrow(/needs purpose, effects and tools/);
  });
});
