/**
 * Where an HTTPS upstream may be (docs/contract.md#upstreams): the same guard as `http.request`
 * (providers/std/src/tools/target-guard.ts: no loopback, private networks, cloud metadata or
 * internal names, every spelling of them), plus https only and no credentials in the URL. It
 * runs when an upstream is registered and again on every request the MCP client sends, each
 * redirect hop included; the client follows a redirect only within the endpoint's own origin
 * (its `redirectPolicy: 'same-origin'`), so a redirect to another host is never followed.
 *
 * `UPSTREAM_EGRESS_ALLOW` lists exact host:port entries that skip the address rules (and may
 * be plain http): test stacks only, like the std provider's EGRESS_ALLOW; it ships empty.
 */
import { egressPolicyFrom, canonicalHost, type EgressPolicy } from "../../providers/std/src/tools/egress-policy.ts";
import { checkTarget } from "../../providers/std/src/tools/target-guard.ts";
import { envValue } from "./config.ts";

export type UrlCheck = { ok: true } | { ok: false; reason: string };

const cache = new WeakMap<object, EgressPolicy>();

/** UPSTREAM_EGRESS_PORTS (default 443, 80) and UPSTREAM_EGRESS_ALLOW, read once per isolate. */
export function upstreamEgress(env: Env): EgressPolicy {
  let policy = cache.get(env);
  if (!policy) {
    policy = egressPolicyFrom({
      EGRESS_PORTS: envValue(env, "UPSTREAM_EGRESS_PORTS"),
      EGRESS_ALLOW: envValue(env, "UPSTREAM_EGRESS_ALLOW"),
    });
    cache.set(env, policy);
  }
  return policy;
}

export function checkUpstreamUrl(url: URL, policy: EgressPolicy): UrlCheck {
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "credentials_in_url" };
  const host = canonicalHost(url.hostname);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  const allowListed = policy.allow.has(`${host}:${port}`);
  if (url.protocol !== "https:" && !(allowListed && url.protocol === "http:"))
    return { ok: false, reason: "https_required" };
  return checkTarget(url, policy);
}

/** A request the guard refused; the adapter reports it as the upstream being unreachable. */
export class EgressRefused extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`the upstream's address is not allowed (${reason})`);
    this.name = "EgressRefused";
    this.reason = reason;
  }
}
