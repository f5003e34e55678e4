/**
 * Local development answers the developer's own machine only.
 *
 * A local stack (LOCAL_DEVELOPMENT=true, set by .dev.vars alone) honours two well-known keys,
 * and listens on 127.0.0.1. Listening on loopback does not keep a web page out: a page at
 * attacker.example can re-point its own name to 127.0.0.1 (DNS rebinding) and then call the
 * stack as same-origin, with the well-known keys it can read in this public repository. The
 * browser lets the page choose neither the Host header (it stays attacker.example) nor the
 * Origin header, so those two tell such a request apart (MCP's transport rules ask the same
 * of any local server: https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning).
 *
 * Two rules, both pure functions here:
 *  - `isLocalRequest`: the well-known keys count only for a request whose Host is a loopback
 *    name or address and whose connecting address, where one is known, is loopback. In a
 *    deployment the keys are not loaded at all (src/config.ts), so this is a second lock.
 *  - `localOnlyRefusal`: while LOCAL_DEVELOPMENT is on, every route refuses a non-loopback
 *    Host, and a present Origin that is not a loopback origin (403 `forbidden`).
 *
 * `CF-Connecting-IP` is set by Cloudflare's edge and cannot be forged there; under
 * `wrangler dev` miniflare sets it to the socket's peer address only when the request does not
 * carry one (node_modules/miniflare, entry worker `getUserRequest`), so locally it is a hint:
 * a non-loopback value refuses, a loopback one proves nothing. The Host rule is what holds.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { RuntimeError } from "../errors.ts";

/** What the rules read from a request: its URL and headers. */
export interface RequestFacts {
  url: string;
  headers: { get(name: string): string | null };
}

/** localhost (and its subdomains, RFC 6761 §6.3), 127.0.0.0/8 and [::1], with or without a port. */
export function isLoopbackHost(host: string | null | undefined): boolean {
  // A bare authority only: a value with a path, user info or spaces is no Host at all.
  if (!host || !/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) return false;
  try {
    // The URL parser's normal form: 127.1 and 0x7f.0.0.1 are 127.0.0.1, [0::1] is [::1].
    return isLoopbackName(new URL(`http://${host}`).hostname.toLowerCase());
  } catch {
    return false;
  }
}

function isLoopbackName(hostname: string): boolean {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (hostname === "[::1]" || hostname === "::1") return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return v4 !== null && v4[1] === "127" && v4.slice(2).every((o) => Number(o) <= 255);
}

/** An Origin header value naming a page served from loopback (http or https, any port). */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackName(url.hostname.toLowerCase());
}

/** A connecting address (CF-Connecting-IP) that is loopback. */
export function isLoopbackAddress(ip: string): boolean {
  const bare = ip.trim().toLowerCase();
  const v4 = bare.replace(/^::ffff:/, "");
  return bare === "::1" || (/^[\d.]+$/.test(v4) && isLoopbackName(v4));
}

/**
 * Whether a request comes from the machine the stack runs on, as far as it can tell: the URL's
 * host and the Host header (when present) are loopback, and so is the connecting address when
 * one is given.
 */
export function isLocalRequest(request: RequestFacts): boolean {
  return localProblem(request, false) === undefined;
}

/** Why a local stack refuses this request (Host, Origin, connecting address), or undefined. */
export function localOnlyRefusal(request: RequestFacts): string | undefined {
  return localProblem(request, true);
}

function localProblem(request: RequestFacts, checkOrigin: boolean): string | undefined {
  const urlHost = new URL(request.url).host;
  const host = request.headers.get("host");
  const foreign = !isLoopbackHost(urlHost) ? urlHost : host !== null && !isLoopbackHost(host) ? host : undefined;
  if (foreign !== undefined) return `Host ${JSON.stringify(foreign)} is not a loopback name or address`;
  const ip = request.headers.get("cf-connecting-ip");
  if (ip !== null && !isLoopbackAddress(ip)) return `the connecting address ${ip} is not loopback`;
  const origin = request.headers.get("origin");
  if (checkOrigin && origin !== null && !isLoopbackOrigin(origin))
    return `Origin ${JSON.stringify(origin)} is not a loopback origin`;
  return undefined;
}

/**
 * The guard, registered once ahead of every route (src/app.ts): a no-op unless
 * LOCAL_DEVELOPMENT is "true". The refusal is 403 `forbidden` in the error envelope, and on
 * a JSON-RPC path (`/mcp`, `/mcp/{bundle}`) the same envelope inside a JSON-RPC error, as MCP clients read it.
 * Static console files are served before the Worker runs (wrangler.jsonc "assets"); they are
 * public, and the console calls only guarded routes.
 */
export function localOnly(isJsonRpcPath: (path: string) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.env.LOCAL_DEVELOPMENT === "true") {
      const problem = localOnlyRefusal(c.req.raw);
      if (problem) {
        const refusal = new RuntimeError(
          "forbidden",
          `a local development stack answers requests from this machine only: ${problem}`,
          { reason: "local_only" },
        );
        if (!isJsonRpcPath(c.req.path)) throw refusal;
        return c.json(
          {
            jsonrpc: "2.0",
            error: { code: -32000, message: refusal.message, data: { error: refusal.toBody() } },
            id: null,
          },
          403,
        );
      }
    }
    await next();
  };
}
