/**
 * The client's HTTP plumbing: one `request` that adds the credential and turns a thrown
 * `fetch` into a `network_error`, and one `json` that turns an error envelope into a
 * ToolRuntimeError. Only `fetch` and Web types, so it runs in Node, browsers and Workers.
 */
import type { ExecutionView } from "../src/contract.ts";
import { checkHeaderValue, localError, ToolRuntimeError } from "./errors.ts";

export interface Transport {
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  json<T>(res: Response): Promise<T>;
}

export function createTransport(baseUrl: string, apiKey: string, doFetch: typeof fetch): Transport {
  if (typeof apiKey !== "string" || apiKey.trim() === "") throw localError("invalid_argument", "no API key was given; pass apiKey (a trt_… key or a JWT)");
  checkHeaderValue("the API key", apiKey);
  const base = baseUrl.replace(/\/+$/, "");
  const auth = `Bearer ${apiKey}`;
  return {
    async request(method, path, init = {}) {
      const headers: Record<string, string> = { authorization: auth, ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers };
      for (const [name, value] of Object.entries(init.headers ?? {})) checkHeaderValue(`the ${name} header`, value);
      try {
        return await doFetch(`${base}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: init.signal });
      } catch (err) {
        if (init.signal?.aborted) throw err;
        // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is its cause.
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (err as Error).message;
        throw localError("network_error", `could not reach the runtime at ${base} (${why})`, { url: base });
      }
    },
    async json<T>(res: Response): Promise<T> {
      const text = await res.text().catch((err: Error) => {
        throw localError("network_error", `the connection dropped while reading the answer: ${err.message}`);
      });
      let body: any;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        throw new ToolRuntimeError({ code: "bad_response", message: `the runtime answered HTTP ${res.status} with a body that is not JSON (is the URL that of the runtime?)`, retryable: res.status >= 500 }, res.status);
      }
      if (res.ok) return body as T;
      const retryAfter = Number(res.headers.get("retry-after"));
      const execution = body && typeof body === "object" && "execution_id" in body ? (body as ExecutionView) : undefined;
      const error = body?.error ?? { code: "internal", message: `HTTP ${res.status}`, type: "runtime_error", retryable: res.status >= 500 };
      throw new ToolRuntimeError(error, res.status, execution, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
    },
  };
}
