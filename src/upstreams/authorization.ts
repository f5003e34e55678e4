/**
 * Which credential one call to an upstream carries (docs/contract.md#upstreams): the calling tenant's own
 * token for that upstream when the upstream takes tenant tokens and the tenant stored one,
 * otherwise the upstream's secret (a Worker secret named in its registration), otherwise none.
 * Never the caller's own credential to the runtime (MCP authorization: no token passthrough).
 */
import { credentialStub } from "../object-stubs.ts";
import { envValue } from "./config.ts";
import { openToken, tokenKey } from "./credentials.ts";
import { UpstreamFailure } from "./upstream-failure.ts";
import type { UpstreamTarget } from "./target.ts";

export interface CallAuthorization {
  /** The `Authorization` header value, or none. */
  header?: string;
  credential: "tenant" | "runtime" | "none";
}

export async function authorizationFor(
  env: Env,
  target: Pick<UpstreamTarget, "upstream" | "secret" | "tenant_credentials" | "url" | "binding">,
  tenant: string | undefined,
): Promise<CallAuthorization> {
  if (target.tenant_credentials && tenant !== undefined) {
    const sealed = await credentialStub(env, tenant).get(target.upstream);
    if (sealed) {
      const key = await tokenKey(env).catch(() => undefined);
      const token =
        key &&
        (await openToken(key, tenant, { name: target.upstream, url: target.url, binding: target.binding }, sealed));
      if (token) return { header: `Bearer ${token}`, credential: "tenant" };
      // Sealed under a key that is gone (rotated), or for the server that had this name before
      // it was registered again elsewhere: void until the tenant stores it again. Said without the token.
      console.warn(
        JSON.stringify({
          msg: "a stored upstream token is void (another key, or the upstream's address changed); using the upstream's own credential",
          upstream: target.upstream,
          tenant,
        }),
      );
    }
  }
  if (target.secret !== undefined) {
    const value = envValue(env, target.secret);
    if (typeof value !== "string" || value === "") {
      throw new UpstreamFailure({
        code: "sandbox_unavailable",
        message: `the upstream's secret ${target.secret} is not set`,
        transport: true,
      });
    }
    return { header: `Bearer ${value}`, credential: "runtime" };
  }
  return { credential: "none" };
}
