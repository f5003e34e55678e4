/**
 * The client's HTTP plumbing: `request` adds the credential and turns a thrown `fetch` into a
 * `network_error`; `json` turns an error envelope into its error class (wire-errors.ts);
 * `call` runs one API call inside its scope (signal, deadline) with the retry policy. Only
 * `fetch` and Web types, so it runs in Node, browsers and Workers.
 */
import type { ExecutionView } from "../src/contract.ts";
import { openScope, type CallOptions, type CallScope, type RetryPolicy } from "./call-options.ts";
import { checkHeaderValue, localError } from "./errors.ts";
import { withRetries } from "./retry.ts";
import { wireError } from "./wire-errors.ts";

export interface RequestParts {
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Transport {
  request(method: string, path: string, init?: RequestParts & { signal?: AbortSignal }): Promise<Response>;
  json<T>(res: Response, signal?: AbortSignal): Promise<T>;
  /** Sends inside an open scope, retrying as `policy` allows; `read` turns the answer into the result. */
  send<T>(
    method: string,
    path: string,
    parts: RequestParts,
    s: { scope: CallScope; options?: CallOptions; idempotent: boolean; read?: (res: Response) => Promise<T> },
  ): Promise<T>;
  /** One call with its own scope: `send`, then the scope is closed. */
  call<T>(
    method: string,
    path: string,
    parts: RequestParts,
    options: CallOptions | undefined,
    idempotent: boolean,
    read?: (res: Response) => Promise<T>,
  ): Promise<T>;
}

export function createTransport(
  baseUrl: string,
  apiKey: string,
  doFetch: typeof fetch,
  retries?: RetryPolicy,
): Transport {
  if (typeof apiKey !== "string" || apiKey.trim() === "")
    throw localError("invalid_argument", "no API key was given; pass apiKey (a trt_… key or a JWT)");
  checkHeaderValue("the API key", apiKey);
  const base = baseUrl.replace(/\/+$/, "");
  const auth = `Bearer ${apiKey}`;
  const t: Transport = {
    async request(method, path, init = {}) {
      const headers: Record<string, string> = {
        authorization: auth,
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        ...init.headers,
      };
      for (const [name, value] of Object.entries(init.headers ?? {})) checkHeaderValue(`the ${name} header`, value);
      try {
        return await doFetch(`${base}${path}`, {
          method,
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: init.signal,
        });
      } catch (err) {
        if (init.signal?.aborted) throw init.signal.reason;
        // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is its cause.
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (err as Error).message;
        throw localError("network_error", `could not reach the runtime at ${base} (${why})`, { url: base });
      }
    },
    async json<T>(res: Response, signal?: AbortSignal): Promise<T> {
      const text = await res.text().catch((err: Error) => {
        if (signal?.aborted) throw signal.reason;
        throw localError("network_error", `the connection dropped while reading the answer: ${err.message}`);
      });
      let body: any;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        throw localError(
          "bad_response",
          `the runtime answered HTTP ${res.status} with a body that is not JSON (is the URL that of the runtime?)`,
          undefined,
          res.status,
        );
      }
      if (res.ok) return body as T;
      const execution =
        body && typeof body === "object" && "execution_id" in body ? (body as ExecutionView) : undefined;
      const error = body?.error ?? {
        code: "internal",
        message: `HTTP ${res.status}`,
        type: "runtime_error",
        retryable: res.status >= 500,
      };
      throw wireError(error, res.status, execution, retryAfterMs(res.headers.get("retry-after")));
    },
    send(method, path, parts, { scope, options = {}, idempotent, read }) {
      const once = async () => {
        scope.throwIfAborted(); // an aborted call sends nothing, not even a first attempt
        const res = await t.request(method, path, { ...parts, signal: scope.signal });
        return read ? read(res) : t.json<any>(res, scope.signal);
      };
      return withRetries(once, {
        policy: options.retries ?? retries,
        idempotent,
        scope,
        deadline: scope.deadline,
      }).catch((err) => {
        scope.throwIfAborted();
        throw err;
      });
    },
    async call(method, path, parts, options, idempotent, read) {
      const scope = openScope(options);
      try {
        return await t.send(method, path, parts, { scope, options, idempotent, read });
      } finally {
        scope.close();
      }
    },
  };
  return t;
}

/** `Retry-After` in ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
