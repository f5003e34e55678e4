/**
 * Reading a request body within limits, the same way on every HTTP face (REST in JSON and
 * MessagePack, the operators' routes, Connect and gRPC-Web, MCP). A declared length over the
 * limit is refused before a byte is read; a body without one (chunked) is cut off the moment it
 * passes the limit, so an oversized body is never read to its end. Callers check the credential
 * first (the /v1 middleware, Connect's request gate), so a caller without one makes the runtime
 * read nothing at all. What the platform does with bytes the runtime left unread is its own
 * affair: under `wrangler dev` a middleware wrangler adds reads them to the end before the answer
 * goes out (WRANGLER_DISABLE_REQUEST_BODY_DRAINING turns it off), which is why the "never read"
 * tests count what is pulled in workerd itself (test/integration/connect-limits.test.ts).
 */
import { RuntimeError } from "../errors.ts";

/** Refuses a request whose `Content-Length` is over `maxBytes`, before anything is read. */
export function refuseDeclaredLength(headers: Headers, maxBytes: number): void {
  const declared = headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    throw new RuntimeError("payload_too_large", `request body is ${declared} bytes; the maximum is ${maxBytes}`, {
      max_bytes: maxBytes,
      actual_bytes: Number(declared),
    });
  }
}

/** Reads at most `maxBytes` of the body; a longer body is refused without reading it all. */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  refuseDeclaredLength(request.headers, maxBytes);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return body;
}

/**
 * The body as a stream that errors (and cancels its source) once more than `maxBytes` have
 * passed, for a reader that is not ours (the Connect library). `refusal` turns the refusal
 * into the error that reader passes on to its caller. Nothing is taken from the source until
 * the reader asks, so a request refused before its body is read leaves the body untouched.
 */
export function cappedBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  refusal: (err: RuntimeError) => unknown = (err) => err,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let total = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= body.getReader();
        const { done, value } = await reader.read();
        if (done) return controller.close();
        total += value.byteLength;
        if (total <= maxBytes) return controller.enqueue(value);
        controller.error(refusal(tooLarge(maxBytes)));
        await reader.cancel().catch(() => {});
      },
      cancel: (reason) => (reader ? reader.cancel(reason) : body.cancel(reason)),
    },
    { highWaterMark: 0 },
  );
}

function tooLarge(maxBytes: number): RuntimeError {
  return new RuntimeError("payload_too_large", `request body exceeds the maximum of ${maxBytes} bytes`, {
    max_bytes: maxBytes,
  });
}
