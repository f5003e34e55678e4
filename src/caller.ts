/**
 * Who is calling. Until authentication lands (credentials resolved to tenant, agent,
 * capabilities and channels), every HTTPS caller is the configured DEV_CALLER.
 */
import { loadConfig } from "./config.ts";
import type { Env } from "./env.ts";
import type { Caller } from "./pipeline/capability.ts";

export function resolveCaller(env: Env): Caller {
  const c = loadConfig(env).devCaller;
  return { tenant: c.tenant, agent: c.agent, capabilities: c.capabilities, channels: c.channels, role: c.role };
}
