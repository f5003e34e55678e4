/**
 * What a registration needs from the Worker's environment (docs/contract.md#upstreams): the binding
 * bound, the secret set, the URL allowed by the egress guard. The admin API refuses a
 * registration that fails one, with the field and the reason; a registration from deploy
 * configuration is left out of the catalog with the same reason as a registry problem (secrets
 * are set after deploying, so this is not a configuration error).
 */
import { envValue, UpstreamConfigError, type UpstreamConfig } from "./config.ts";
import { checkUpstreamUrl, upstreamEgress } from "./egress.ts";

export function checkAgainstEnv(env: Env, upstream: UpstreamConfig): void {
  if (upstream.binding !== undefined) {
    const bound = Reflect.get(env, upstream.binding) as { fetch?: unknown } | undefined;
    if (!bound || typeof bound.fetch !== "function")
      throw new UpstreamConfigError("binding", `no service binding ${upstream.binding} is bound to the runtime`);
  }
  if (upstream.url !== undefined) {
    const check = checkUpstreamUrl(new URL(upstream.url), upstreamEgress(env));
    if (!check.ok)
      throw new UpstreamConfigError(
        "url",
        `the url is not allowed: ${check.reason}${check.reason === "https_required" ? "" : " (upstreams must be public https endpoints)"}`,
      );
  }
  if (upstream.secret !== undefined) {
    const value = envValue(env, upstream.secret);
    if (typeof value !== "string" || value === "")
      throw new UpstreamConfigError(
        "secret",
        `no Worker secret named ${upstream.secret} is set (wrangler secret put ${upstream.secret})`,
      );
  }
}
