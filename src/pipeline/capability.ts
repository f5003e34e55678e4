/**
 * Stage 3 (docs/contract.md#capabilities): capability validation. Level 1 (may the caller reach this provider?)
 * filters the offerings before ranking; level 3 (does the caller hold the tool's
 * `capability_required`?) is checked on the chosen tool. Level 2, intent verification, is
 * in intent.ts.
 */
import type { Caller, CapabilityDecision } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import type { Offering } from "../registry/catalog.ts";

/** Level 1: the offerings whose provider the caller's channels allow. */
export function reachableOfferings(caller: Caller, offerings: readonly Offering[], explicit?: string): Offering[] {
  const allows = (provider: string) => caller.channels.includes("*") || caller.channels.includes(provider);
  if (explicit !== undefined && offerings.some((o) => o.provider === explicit) && !allows(explicit)) {
    throw new RuntimeError("forbidden", `caller may not reach provider ${explicit}`, {
      level: 1,
      provider: explicit,
      reason: "no channel to provider",
    });
  }
  const reachable = offerings.filter((o) => allows(o.provider));
  if (reachable.length === 0) {
    throw new RuntimeError("forbidden", "caller may not reach any provider of this tool", {
      level: 1,
      providers: offerings.map((o) => o.provider),
      reason: "no channel to any provider",
    });
  }
  return reachable;
}

/**
 * `network:{url.host}` → `network:<host of input.url>`. When the input does not yield a host
 * (missing or not a URL), the widest form `network:*` is required instead: a call the
 * runtime cannot scope needs the broadest grant, never a narrower one.
 */
export function resolveRequiredCapability(template: string | null, input: unknown): string | null {
  if (template === null) return null;
  return template.replace(/\{([a-z_][a-z0-9_]*)\.host\}/gi, (_m, field: string) => {
    const value = input !== null && typeof input === "object" ? (input as Record<string, unknown>)[field] : undefined;
    if (typeof value === "string") {
      try {
        const host = new URL(value).hostname;
        if (host) return host.toLowerCase();
      } catch {
        /* not a URL: fall through to the widest form */
      }
    }
    return "*";
  });
}

/**
 * The grant in `held` that covers `required`, if any. A grant covers a requirement when it
 * is equal, is `kind:*` for the same kind, or is `kind:*.suffix` and the scope ends in
 * `.suffix`. `*` alone covers everything. A `kind:*` requirement is covered only by `kind:*`.
 */
export function coveringGrant(held: readonly string[], required: string): string | undefined {
  const [kind, scope = ""] = splitCapability(required);
  return held.find((grant) => {
    if (grant === "*" || grant === required) return true;
    const [gKind, gScope = ""] = splitCapability(grant);
    if (gKind !== kind || scope === "*") return false;
    if (gScope === "*") return true;
    return gScope.startsWith("*.") && scope.endsWith(gScope.slice(1)) && scope.length > gScope.length - 1;
  });
}

/** Level 3: throws `forbidden` when the caller lacks the tool's capability. */
export function checkToolCapability(
  caller: Caller,
  template: string | null,
  input: unknown,
): CapabilityDecision["level3"] {
  const required = resolveRequiredCapability(template, input);
  if (required === null) return { required: null, granted_by: null };
  const grant = coveringGrant(caller.capabilities, required);
  if (!grant) {
    throw new RuntimeError("forbidden", `caller lacks capability ${required}`, {
      level: 3,
      required,
      reason: "missing capability",
    });
  }
  return { required, granted_by: grant };
}

function splitCapability(cap: string): [string, string?] {
  const i = cap.indexOf(":");
  return i < 0 ? [cap] : [cap.slice(0, i), cap.slice(i + 1)];
}
