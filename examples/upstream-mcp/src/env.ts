import type { UpstreamState } from "./state.ts";

/** Bindings and secrets from wrangler.jsonc (all secrets optional; see wrangler.jsonc). */
export interface Env {
  STATE: DurableObjectNamespace<UpstreamState>;
  UPSTREAM_TOKENS?: string;
  ADMIN_SECRET?: string;
  ALLOWED_ORIGINS?: string;
}

/** Splits a comma-separated setting into its non-empty, trimmed items. */
export function listSetting(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** The one state object: a test upstream has little state and wants it strongly consistent. */
export function stateOf(env: Env): DurableObjectStub<UpstreamState> {
  return env.STATE.getByName("state");
}
