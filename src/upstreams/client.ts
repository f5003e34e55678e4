/**
 * A connected MCP client for one upstream, made for one exchange (a listing, or one call) and
 * closed after it. One per call, not one per isolate: the call's own credential goes in its
 * transport (no shared client that must be told per request whose token to send), its abort
 * closes its own requests (2025 servers included, which a `notifications/cancelled` does not
 * stop), and no request's I/O is left for another request to touch. A modern upstream costs no
 * extra round trip for this: the client adopts the registry's `server/discover` result.
 *
 * Every request goes through `guardedFetch`: the egress guard on every URL (redirect hops
 * included), the credential set here and nowhere else, and the answer cut off past a size
 * limit so that a huge result cannot exhaust the runtime's memory.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { checkUpstreamUrl, EgressRefused, upstreamEgress } from "./egress.ts";
import { endpointUrl, type UpstreamEndpoint, type UpstreamEra } from "./target.ts";

export const CLIENT_INFO = { name: "tool-runtime", version: "1.0.0" };

/** The most an upstream's answer to one request may be: past any output a caller can accept (1 MiB), twice over (text and structured content). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** What a guarded fetch saw that the SDK's error cannot carry. */
export interface ExchangeFlags {
  tooLarge: boolean;
  /**
   * The `notifications/cancelled` POSTs under way (toward 2025-era servers): closing the
   * client aborts every request of its transport, so the adapter lets these finish first.
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

export interface Connection {
  client: Client;
  flags: ExchangeFlags;
  close(): Promise<void>;
}

export async function connectUpstream(env: Env, endpoint: UpstreamEndpoint, o: ConnectOptions): Promise<Connection> {
  const flags: ExchangeFlags = { tooLarge: false, cancellations: [] };
  const fetch = guardedFetch(env, endpoint, o.authorization, o.maxResponseBytes ?? MAX_RESPONSE_BYTES, flags);
  const transport = new StreamableHTTPClientTransport(new URL(endpointUrl(endpoint)), { fetch });
  // The client's own validator is the one made for Workers (no code generation); the runtime
  // validates outputs itself (stage 7), so the client is never handed an output schema.
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: "auto" },
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  const close = () => client.close().catch(() => {});
  try {
    await client.connect(transport, {
      timeout: o.timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.era ? { prior: o.era as never } : {}),
    });
  } catch (err) {
    await close();
    throw err;
  }
  return { client, flags, close };
}

/** The era a connected client speaks, as the registry keeps it for later calls. */
export function eraOf(client: Client): UpstreamEra {
  const discover = client.getDiscoverResult() as { supportedVersions?: unknown; capabilities?: unknown } | undefined;
  if (discover && Array.isArray(discover.supportedVersions)) {
    return {
      kind: "modern",
      discover: {
        supportedVersions: discover.supportedVersions,
        capabilities: (discover.capabilities ?? {}) as object,
      },
    };
  }
  return { kind: "legacy" };
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
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    if (endpoint.url !== undefined) {
      const check = checkUpstreamUrl(url, policy);
      if (!check.ok) throw new EgressRefused(check.reason);
    } else if (!binding || typeof binding.fetch !== "function") {
      throw new EgressRefused(`no service binding ${endpoint.binding}`);
    }
    // The credential is the runtime's choice for this exchange alone: whatever else the
    // headers hold, only it is sent (a caller's token never reaches an upstream).
    const headers = new Headers(init?.headers);
    headers.delete("authorization");
    if (authorization !== undefined) headers.set("authorization", authorization);
    const request = { ...init, headers, redirect: init?.redirect ?? "manual" } satisfies RequestInit;
    const sent = binding ? binding.fetch(url.href, request) : fetch(url.href, request);
    if (typeof init?.body === "string" && init.body.includes('"notifications/cancelled"'))
      flags.cancellations.push(sent.catch(() => undefined));
    return capped(await sent, maxBytes, flags);
  };
}

/** The same response, its body cut off (an error for the reader) after `maxBytes`. */
function capped(response: Response, maxBytes: number, flags: ExchangeFlags): Response {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    flags.tooLarge = true;
    void response.body?.cancel().catch(() => {});
    throw new ResponseTooLarge(maxBytes);
  }
  if (!response.body) return response;
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) {
        flags.tooLarge = true;
        controller.error(new ResponseTooLarge(maxBytes));
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

export class ResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the upstream's answer exceeded ${maxBytes} bytes`);
    this.name = "ResponseTooLarge";
  }
}
