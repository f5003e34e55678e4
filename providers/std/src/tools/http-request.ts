/**
 * `http.request`: one HTTP exchange with a public host. Every hop, the first and each
 * redirect, goes through `checkTarget`, so a public URL cannot bounce the request into
 * loopback, a private network, cloud metadata or an internal name, nor onto a port outside
 * the egress policy. DNS rebinding stays possible: Workers have no DNS API, so a public name
 * that resolves to a private address cannot be caught here (README "http.request and egress").
 */
import { defineTool, ToolError, type ToolContext } from "../../../sdk/define.ts";
import { DEFAULT_EGRESS, type EgressPolicy } from "./egress-policy.ts";
import { checkTarget } from "./target-guard.ts";

type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

interface HttpRequestInput {
  method?: Method;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

interface HttpResponseOutput {
  status_code: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

const MAX_REDIRECTS = 5;
const MAX_BODY_BYTES = 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials the caller meant for one origin must not follow a redirect to another.
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];

const stringMap = { type: "object", additionalProperties: { type: "string" } };

/** The tool under an egress policy (the std provider builds it from its config at load). */
export const httpRequestTool = (policy: EgressPolicy) =>
  defineTool<HttpRequestInput, HttpResponseOutput>({
    name: "http.request",
    version: "1.0.0",
    description:
      "Sends an HTTP request to a public http(s) URL and returns the status, headers and up to 1 MiB of body as text. Follows up to 5 redirects on the same host (a redirect to another host is returned as it is); private, loopback and metadata addresses are refused.",
    input: {
      type: "object",
      properties: {
        method: { type: "string", enum: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"], default: "GET" },
        url: { type: "string", maxLength: 2048 },
        headers: stringMap,
        body: { type: "string", maxLength: 1_000_000 },
      },
      required: ["url"],
      additionalProperties: false,
    },
    output: {
      type: "object",
      properties: {
        status_code: { type: "integer" },
        headers: stringMap,
        body: { type: "string" },
        truncated: { type: "boolean", description: "true when the body was longer than 1 MiB and was cut" },
      },
      required: ["status_code", "headers", "body", "truncated"],
      additionalProperties: false,
    },
    capability_required: "network:{url.host}",
    idempotent: false,
    latency_class: "slow",
    effects: "send",
    tags: ["network", "web"],
    coercion: "strict",
    // details.reason says more: which rule refused a target (loopback, private, port_not_allowed...).
    error_codes: [
      { code: "invalid_url", description: "The url does not parse as an absolute URL." },
      {
        code: "target_refused",
        description: "The url names a host or port http.request must not reach; details.reason says why.",
      },
      {
        code: "redirect_refused",
        description: "A redirect pointed somewhere http.request must not reach; details.reason says why.",
      },
      { code: "too_many_redirects", description: "More than 5 redirects on the same host." },
      { code: "body_not_allowed", description: "A GET or HEAD request with a body." },
      { code: "invalid_header", description: "A request header name or value that HTTP does not allow." },
      { code: "network_error", description: "The connection failed or was reset (retryable)." },
    ],
    handler: async (input, ctx) => {
      let method: Method = input.method ?? "GET";
      let body = input.body;
      const headers = requestHeaders(input.headers);
      if (body !== undefined && (method === "GET" || method === "HEAD")) {
        throw new ToolError(`a ${method} request cannot carry a body`, {
          code: "body_not_allowed",
          details: { reason: "body_not_allowed" },
        });
      }

      let target = guardedUrl(input.url, policy);
      for (let redirects = 0; ; redirects++) {
        const response = await send(target, { method, headers, body, redirect: "manual", signal: ctx.signal }, ctx);
        const location = response.headers.get("location");
        if (!REDIRECT_STATUSES.has(response.status) || location === null) return readResponse(response, method, ctx);

        const next = guardedUrl(location, policy, target);
        // The caller's capability names one host (network:{url.host}); a redirect elsewhere is
        // handed back as it is, for the caller to follow under its own grant or not at all.
        if (next.hostname !== target.hostname) return readResponse(response, method, ctx);
        await response.body?.cancel();
        if (redirects === MAX_REDIRECTS) {
          throw new ToolError(`more than ${MAX_REDIRECTS} redirects`, {
            code: "too_many_redirects",
            details: { reason: "too_many_redirects" },
          });
        }
        // Fetch standard, HTTP-redirect fetch: 303 turns into GET, and so do 301/302 after a POST.
        if (
          (response.status === 303 && method !== "HEAD") ||
          ((response.status === 301 || response.status === 302) && method === "POST")
        ) {
          method = "GET";
          body = undefined;
          headers.delete("content-type");
        }
        if (next.origin !== target.origin) for (const name of ORIGIN_BOUND_HEADERS) headers.delete(name);
        target = next;
      }
    },
  });

/** As `defineTool` sees it with the default policy: ports 80 and 443, no allow-list. */
export const httpRequest = httpRequestTool(DEFAULT_EGRESS);

function requestHeaders(given: Record<string, string> = {}): Headers {
  try {
    return new Headers(given);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ToolError(`invalid request headers: ${message}`, {
      code: "invalid_header",
      details: { reason: "invalid_header" },
    });
  }
}

/**
 * Parses `raw` (relative to `base` for a Location header) and refuses what we must not reach.
 * A redirect's refusal says `redirect_<reason>`, so the caller knows its own URL was fine.
 */
function guardedUrl(raw: string, policy: EgressPolicy, base?: URL): URL {
  const prefix = base ? "redirect_" : "";
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ToolError(`not a valid URL: ${raw.slice(0, 200)}`, {
      code: base ? "redirect_refused" : "invalid_url",
      details: { reason: `${prefix}invalid_url` },
    });
  }
  const check = checkTarget(url, policy);
  if (!check.ok) {
    const what = base ? "a redirect to" : "requests to";
    throw new ToolError(`${what} ${url.protocol}//${url.host.slice(0, 200)} are refused (${check.reason})`, {
      code: base ? "redirect_refused" : "target_refused",
      details: { reason: `${prefix}${check.reason}` },
    });
  }
  return url;
}

async function send(url: URL, init: RequestInit, ctx: ToolContext): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    // Cancellation must surface as the abort it is, so the SDK reports `cancelled`.
    if (ctx.signal.aborted) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new ToolError(`the request to ${url.host} failed: ${message}`, {
      code: "network_error",
      retryable: true,
      details: { reason: "network_error" },
    });
  }
}

async function readResponse(response: Response, method: Method, ctx: ToolContext): Promise<HttpResponseOutput> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  });
  const { text, truncated } = method === "HEAD" ? { text: "", truncated: false } : await readBody(response, ctx);
  return { status_code: response.status, headers, body: text, truncated };
}

/** Reads at most MAX_BODY_BYTES as UTF-8; `truncated` only when a byte beyond them exists. */
async function readBody(response: Response, ctx: ToolContext): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let kept = 0;
  try {
    for (;;) {
      ctx.signal.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), truncated: false };
      if (kept + value.byteLength > MAX_BODY_BYTES) {
        // No final flush: a character cut in half at the limit is dropped, not mangled.
        text += decoder.decode(value.subarray(0, MAX_BODY_BYTES - kept), { stream: true });
        await reader.cancel();
        return { text, truncated: true };
      }
      kept += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}
