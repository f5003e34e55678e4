/** Liveness and readiness (TRT-002 §3 operations). */
import { reply } from "../codec/negotiate.ts";
import { Hono } from "hono";
import { loadConfig, providerBinding } from "../config.ts";
import type { AppEnv } from "../app-env.ts";
import { errorBody } from "../errors.ts";
import { registryStub } from "../registry/snapshot-cache.ts";
import { withTimeout } from "../with-timeout.ts";

const PING_TIMEOUT_MS = 2_000;

export const health = new Hono<AppEnv>();

/** The Worker answers. Touches nothing else, so it stays cheap for load balancers. */
health.get("/healthz", (c) => reply(c, { status: "ok" }));

/** Ready when the registry holds tools and every configured provider answers its manifest now. */
health.get("/readyz", async (c) => {
  const config = loadConfig(c.env);
  const snapshot = await registryStub(c.env).snapshot();
  const providers = await Promise.all(
    config.providers.map(async (p) => {
      const service = providerBinding(c.env, p);
      try {
        if (!service) throw new Error(`no service binding ${p.binding}`);
        await withTimeout(service.manifest(), PING_TIMEOUT_MS, "no answer in time");
        return { name: p.name, reachable: true };
      } catch (err) {
        return { name: p.name, reachable: false, error: (err as Error).message };
      }
    }),
  );
  const toolCount = Object.keys(snapshot.tools).length;
  const ready = toolCount > 0 && providers.every((p) => p.reachable);
  const body = { status: ready ? "ready" : "not_ready", registry_version: snapshot.version, tools: toolCount, providers, problems: snapshot.problems };
  if (ready) return reply(c, body);
  return reply(c, { ...body, error: errorBody("sandbox_unavailable", "the runtime is not ready to serve calls", { providers }) }, 503);
});
