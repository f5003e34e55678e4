/**
 * The runtime's MCP client for one upstream (docs/decisions/43-own-upstream-client.md), made
 * for one exchange (a listing, or one call) and closed after it. One per call, not one per
 * isolate: the call's own credential goes in its requests (no shared client that must be told
 * per request whose token to send), its abort closes its own requests (2025 servers included,
 * which a `notifications/cancelled` does not stop), and no request's I/O is left for another
 * request to touch.
 *
 * Two eras. A modern (2026-07-28) upstream is stateless: every request carries the `_meta`
 * envelope and the `Mcp-Method`/`Mcp-Name` headers, and the registry's `server/discover`
 * result stands in for a handshake, so a call is one round trip. A 2025 upstream gets
 * `initialize`, `notifications/initialized`, then the request with its `Mcp-Session-Id`.
 * Without a known era (a listing) the client probes with `server/discover` and falls back to
 * `initialize` where the answer is no modern one.
 *
 * Every request goes through `guardedFetch`: the egress guard on every URL (redirect hops
 * included), the credential set here and nowhere else, and the answer cut off past a size
 * limit so that a huge result cannot exhaust the runtime's memory.
 */
import { checkUpstreamUrl, EgressRefused, upstreamEgress } from "./egress.ts";
import {
  errorInBody,
  type JsonObject,
  JsonRpcError,
  type JsonRpcMessage,
  LEGACY_VERSIONS,
  CLIENT_INFO,
  META_PROTOCOL_VERSION,
  modernEnvelope,
  probe,
  MODERN_VERSION,
  readAnswer,
  readText,
  UpstreamHttpError,
  WireError,
} from "./mcp-wire.ts";
import { endpointUrl, type UpstreamEndpoint, type UpstreamEra } from "./target.ts";

/** The most an upstream's answer to one request may be: past any output a caller can accept (1 MiB), twice over (text and structured content). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Redirects followed within the upstream's origin, at most (the same bound browsers keep far under). */
const MAX_REDIRECTS = 5;

/** What a guarded fetch saw that an error cannot carry. */
export interface ExchangeFlags {
  tooLarge: boolean;
  /**
   * The `notifications/cancelled` POSTs under way (toward 2025-era servers): closing the
   * connection aborts every request it made, so the adapter lets these finish first.
   */
  cancellations: Promise<unknown>[];
}

export interface ConnectOptions {
  /** The full `Authorization` value to send, or none. */
  authorization?: string;
  signal?: AbortSignal;
  timeoutMs: number;
  /** The era the registry found; without it the client probes (`server/discover`, else `initialize`). */
  era?: UpstreamEra;
  maxResponseBytes?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Extra headers (`Mcp-Param-*`); the protocol's own are the client's. */
  headers?: Record<string, string>;
  /** Each notification that arrives on the request's stream before its answer (progress aside). */
  onNotification?: (n: JsonRpcMessage) => void;
  /** Asks for progress (its token is the request's id) and hears each `notifications/progress` of it. */
  onProgress?: (p: Progress) => void;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface Connection {
  /** The era this connection speaks, as the registry keeps it for later calls. */
  era: UpstreamEra;
  flags: ExchangeFlags;
  /** One request and its result; `params._meta` is merged into the era's envelope. */
  request(method: string, params: JsonObject, o: RequestOptions): Promise<unknown>;
  close(): Promise<void>;
}

export async function connectUpstream(env: Env, endpoint: UpstreamEndpoint, o: ConnectOptions): Promise<Connection> {
  const flags: ExchangeFlags = { tooLarge: false, cancellations: [] };
  const maxBytes = o.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const fetch = guardedFetch(env, endpoint, o.authorization, maxBytes, flags);
  // Every body the client reads is read through this limit (a declared length past it is refused before).
  const limit = {
    maxBytes,
    exceeded: () => {
      flags.tooLarge = true;
      return new ResponseTooLarge(maxBytes);
    },
  };
  const url = new URL(endpointUrl(endpoint));
  // Closing aborts whatever is still under way, the bodies of streams included.
  const closing = new AbortController();
  let era: UpstreamEra = o.era ?? { kind: "legacy" };
  let version: string | undefined = era.kind === "modern" ? MODERN_VERSION : undefined;
  let session: string | undefined;
  let nextId = 0;

  /** POSTs one message, following redirects within the upstream's origin (each hop guarded). */
  const post = (message: JsonObject, signal: AbortSignal, extra?: Record<string, string>) => {
    const headers = new Headers(extra);
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    if (session !== undefined) headers.set("mcp-session-id", session);
    const meta = (message.params as JsonObject | undefined)?._meta as JsonObject | undefined;
    const envelope = meta?.[META_PROTOCOL_VERSION];
    if (typeof envelope === "string") {
      // 2026-07-28: the method and the name a server routes by, without reading the body.
      headers.set("mcp-protocol-version", envelope);
      headers.set("mcp-method", String(message.method));
      const name = (message.params as JsonObject).name;
      if (message.method === "tools/call" && typeof name === "string") headers.set("mcp-name", name);
    } else if (version !== undefined) headers.set("mcp-protocol-version", version);
    const cancellation = message.method === "notifications/cancelled";
    return followWithinOrigin(
      fetch,
      url,
      { method: "POST", headers, body: JSON.stringify(message), signal },
      cancellation,
    );
  };

  const request = async (method: string, params: JsonObject, r: RequestOptions): Promise<unknown> => {
    const id = nextId++;
    const timeout = AbortSignal.timeout(r.timeoutMs);
    const signal = AbortSignal.any([closing.signal, timeout, ...(r.signal ? [r.signal] : [])]);
    const meta = {
      ...(version === MODERN_VERSION ? modernEnvelope() : {}),
      ...(r.onProgress ? { progressToken: id } : {}),
      ...(params._meta as JsonObject),
    };
    const body = { ...params, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
    // Toward a 2025 server an abort is also said in words: closing the request does not stop it
    // there. Not for the handshake's own requests, which the spec says are never cancelled.
    const cancel = () => {
      if (version !== undefined && version !== MODERN_VERSION)
        void post(
          {
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason: String(r.signal?.reason) },
          },
          closing.signal,
        ).then(drain, () => {});
    };
    r.signal?.addEventListener("abort", cancel, { once: true });
    try {
      const response = await post({ jsonrpc: "2.0", id, method, params: body }, signal, r.headers).catch((err) => {
        throw sendFailed(err);
      });
      if (!response.ok) {
        const text = await readText(response, limit).catch(() => "");
        const refusal = response.status === 400 && version === MODERN_VERSION ? errorInBody(text, id) : undefined;
        throw refusal ?? new UpstreamHttpError(response.status);
      }
      if (method === "initialize") session = response.headers.get("mcp-session-id") ?? undefined;
      return await readAnswer(
        response,
        id,
        (m) => {
          if (m.id !== undefined) return; // a server's request: nothing the runtime answers
          const p = m.params ?? {};
          if (m.method !== "notifications/progress") r.onNotification?.(m);
          else if (p.progressToken === id && typeof p.progress === "number")
            r.onProgress?.({
              progress: p.progress,
              ...(typeof p.total === "number" ? { total: p.total } : {}),
              ...(typeof p.message === "string" ? { message: p.message } : {}),
            });
        },
        limit,
      ).catch((err) => {
        throw err instanceof JsonRpcError || err instanceof WireError || err instanceof SyntaxError
          ? err
          : new WireError("CONNECTION_CLOSED", "the upstream's answer broke off", { cause: err });
      });
    } catch (err) {
      if (timeout.aborted && !r.signal?.aborted)
        throw new WireError("REQUEST_TIMEOUT", `the upstream did not answer within ${r.timeoutMs} ms`);
      throw err;
    } finally {
      r.signal?.removeEventListener("abort", cancel);
    }
  };

  const notify = async (method: string, signal: AbortSignal) => {
    const response = await post({ jsonrpc: "2.0", method }, signal).catch((err) => {
      throw sendFailed(err);
    });
    await drain(response);
    if (!response.ok) throw new UpstreamHttpError(response.status);
  };

  const handshake = async () => {
    const signal = AbortSignal.any([closing.signal, ...(o.signal ? [o.signal] : [])]);
    const r = { signal, timeoutMs: o.timeoutMs };
    if (o.era === undefined) {
      const modern = await probe(request, r);
      if (modern) {
        era = modern;
        version = MODERN_VERSION;
        return;
      }
    }
    if (era.kind === "modern") return;
    const init = await request(
      "initialize",
      { protocolVersion: LEGACY_VERSIONS[0], capabilities: {}, clientInfo: CLIENT_INFO },
      r,
    );
    const offered = (init as JsonObject | null)?.protocolVersion;
    if (typeof offered !== "string" || !LEGACY_VERSIONS.includes(offered))
      throw new WireError(
        "INVALID_RESULT",
        `the upstream offered protocol version ${String(offered)}, not one this client speaks`,
      );
    version = offered;
    await notify("notifications/initialized", signal);
  };

  const close = async () => closing.abort();
  try {
    await handshake();
  } catch (err) {
    await close();
    throw err;
  }
  return { era, flags, request, close };
}

async function drain(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

/** What fetch threw before any answer: the request did not reach the upstream (the guard's refusal stays itself). */
function sendFailed(err: unknown): unknown {
  if (err instanceof EgressRefused || err instanceof ResponseTooLarge) return err;
  if (err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError")) return err;
  return new WireError("SEND_FAILED", "the request did not reach the upstream", { cause: err });
}

type GuardedFetch = ReturnType<typeof guardedFetch>;

/** A redirect is followed only within the origin and only where it keeps the POST (307, 308). */
async function followWithinOrigin(
  fetch: GuardedFetch,
  url: URL,
  init: RequestInit,
  cancellation: boolean,
): Promise<Response> {
  let current = url;
  for (let hops = 0; ; hops++) {
    const response = await fetch(current, init, cancellation);
    const location = response.headers.get("location");
    if (![307, 308].includes(response.status) || !location || hops === MAX_REDIRECTS) return response;
    const target = new URL(location, current);
    if (
      target.origin !== current.origin ||
      target.username !== current.username ||
      target.password !== current.password
    )
      return response;
    await drain(response);
    current = target;
  }
}

function guardedFetch(
  env: Env,
  endpoint: UpstreamEndpoint,
  authorization: string | undefined,
  maxBytes: number,
  flags: ExchangeFlags,
) {
  const binding =
    endpoint.binding === undefined ? undefined : (Reflect.get(env, endpoint.binding) as Fetcher | undefined);
  const policy = upstreamEgress(env);
  /** `cancellation`: the message is a `notifications/cancelled`, which the adapter waits for before closing. */
  return async (input: URL, init: RequestInit, cancellation = false): Promise<Response> => {
    const url = input;
    if (endpoint.url !== undefined) {
      const check = checkUpstreamUrl(url, policy);
      if (!check.ok) throw new EgressRefused(check.reason);
    } else if (!binding || typeof binding.fetch !== "function") {
      throw new EgressRefused(`no service binding ${endpoint.binding}`);
    }
    // The credential is the runtime's choice for this exchange alone: whatever else the
    // headers hold, only it is sent (a caller's token never reaches an upstream).
    const headers = new Headers(init.headers);
    headers.delete("authorization");
    if (authorization !== undefined) headers.set("authorization", authorization);
    const request = { ...init, headers, redirect: init.redirect ?? "manual" } satisfies RequestInit;
    const sent = binding ? binding.fetch(url.href, request) : fetch(url.href, request);
    if (cancellation) flags.cancellations.push(sent.catch(() => undefined));
    return capped(await sent, maxBytes, flags);
  };
}

/**
 * The response, refused at once when it declares a length past `maxBytes`. A body without a
 * declared length is counted where it is read (`readAnswer`, `readText` with the client's limit).
 */
function capped(response: Response, maxBytes: number, flags: ExchangeFlags): Response {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    flags.tooLarge = true;
    void response.body?.cancel().catch(() => {});
    throw new ResponseTooLarge(maxBytes);
  }
  return response;
}

export class ResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the upstream's answer exceeded ${maxBytes} bytes`);
    this.name = "ResponseTooLarge";
  }
}
