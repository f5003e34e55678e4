/**
 * A scripted stand-in for the runtime's HTTP answers, for the client's unit tests of its own
 * logic (error classes, retries, pages, aborts); the real runtime is in test/e2e/client*.test.ts.
 */
export interface Seen {
  method: string;
  url: URL;
  body?: any;
  signal?: AbortSignal;
}

export function envelope(
  code: string,
  type: string,
  retryable: boolean,
  status: number,
  o: { details?: Record<string, unknown>; headers?: Record<string, string>; execution?: object } = {},
): Response {
  const body = {
    ...o.execution,
    error: { code, message: `${code} here`, type, retryable, ...(o.details ? { details: o.details } : {}) },
  };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...o.headers } });
}

export const ok = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

/** A fetch that answers with `answers` in turn (the last one repeats) and records each request. */
export function scripted(...answers: (Response | Error | ((seen: Seen) => Response | Promise<Response>))[]) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const s: Seen = {
      method: init?.method ?? "GET",
      url: new URL(String(input)),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
      signal: init?.signal ?? undefined,
    };
    seen.push(s);
    const a = answers[Math.min(seen.length - 1, answers.length - 1)];
    if (a instanceof Error) throw a;
    return typeof a === "function" ? a(s) : a.clone();
  };
  return { fetch, seen };
}

/** A fetch that never answers, and rejects with the signal's reason when it aborts (as fetch does). */
export function hanging() {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    seen.push({ method: init?.method ?? "GET", url: new URL(String(input)), signal: init?.signal ?? undefined });
    return new Promise((_, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  };
  return { fetch, seen };
}

/** An SSE answer that sends `frames`, then stays open until the request's signal aborts. */
export function openStream(
  frames: string[],
  signal: AbortSignal | undefined,
  headers: Record<string, string> = {},
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const f of frames) controller.enqueue(encoder.encode(f));
      signal?.addEventListener("abort", () => controller.error(signal.reason), { once: true });
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", ...headers } });
}

export const frame = (seq: number, type: string, data: unknown = {}) =>
  `id: ${seq}\ndata: ${JSON.stringify({ seq, type, at: "2026-01-01T00:00:00Z", data })}\n\n`;
