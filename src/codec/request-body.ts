/**
 * Reading a request body within limits, the same way on every HTTP face (REST in JSON and
 * MessagePack, the operators' routes, Connect and gRPC-Web, MCP). A declared length over the
 * limit is refused before a byte is read; a body without one (chunked) is cut off the moment it
 * passes the limit, so an oversized body is never read to its end. Callers check the credential
 * first (the /v1 middleware, Connect's request gate), so a caller without one makes the runtime
 * read nothing at all.
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
 * into the error that reader passes on to its caller.
 */
export function cappedBody(body: ReadableStream<Uint8Array>, maxBytes: number, refusal: (err: RuntimeError) => unknown = (err) => err): ReadableStream<Uint8Array> {
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) controller.error(refusal(tooLarge(maxBytes)));
        else controller.enqueue(chunk);
      },
    }),
  );
}

function tooLarge(maxBytes: number): RuntimeError {
  return new RuntimeError("payload_too_large", `request body exceeds the maximum of ${maxBytes} bytes`, { max_bytes: maxBytes });
}
