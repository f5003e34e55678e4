/**
 * The example verifier's policy: each agent has a profile declaring what it is for — the
 * effects it may have and the tools it may use (glob patterns, `*` for any run of
 * characters). A call is aligned when both its tool and its effect fit the agent's profile;
 * an agent without a profile gets the `default` profile. Pure.
 */
import type { IntentRequest, IntentVerdict } from "./protocol.ts";

export interface AgentProfile {
  purpose: string;
  effects: string[];
  tools: string[];
}

export type Profiles = Record<string, AgentProfile>;

export function judgeIntent(request: IntentRequest, profiles: Profiles): IntentVerdict {
  const name = Object.hasOwn(profiles, request.agent) ? request.agent : "default";
  const profile = profiles[name];
  if (!profile)
    return {
      verdict: "misaligned",
      reason: `agent ${request.agent} has no profile and there is no default`,
      profile: name,
    };
  if (!profile.tools.some((pattern) => globMatch(pattern, request.tool))) {
    return {
      verdict: "misaligned",
      reason: `${request.tool} is outside what ${name} is for (${profile.purpose})`,
      profile: name,
    };
  }
  if (!profile.effects.includes(request.effects)) {
    return {
      verdict: "misaligned",
      reason: `${name} may not ${request.effects} (it is for: ${profile.purpose})`,
      profile: name,
    };
  }
  return {
    verdict: "aligned",
    reason: `${request.tool} (${request.effects}) fits ${name}: ${profile.purpose}`,
    profile: name,
  };
}

export function globMatch(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(value);
}

export function parseProfiles(value: unknown): Profiles {
  const raw = typeof value === "string" ? JSON.parse(value) : value;
  if (raw === null || typeof raw !== "object") throw new Error("AGENT_PROFILES must be an object of profiles");
  for (const [name, p] of Object.entries(raw as Record<string, AgentProfile>)) {
    if (typeof p?.purpose !== "string" || !Array.isArray(p.effects) || !Array.isArray(p.tools)) {
      throw new Error(`profile ${name} needs purpose, effects and tools`);
    }
  }
  return raw as Profiles;
}
