/**
 * The pieces every operation of the document is made of: JSON and MessagePack bodies, the
 * header components and their references, the SSE media type, and an operation's public security.
 */
import { ref } from "./schema-builders.ts";

export const JSON_TYPE = "application/json";
/** Every JSON answer can also be had in MessagePack (`Accept: application/msgpack`). */
export const body = (schema: object) => ({ [JSON_TYPE]: { schema }, "application/msgpack": { schema } });
export const requestBody = (schema: object, required = true) => ({
  required,
  content: { ...body(schema), "application/vnd.msgpack": { schema } },
});
export const ok = (description: string, schema: object, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: body(schema),
});
export const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const headers = {
  Location: { description: "Where the execution can be read.", schema: { type: "string" } },
  RetryAfter: { description: "Whole seconds until a retry may succeed.", schema: { type: "integer" } },
  Traceparent: { description: "W3C Trace Context: the caller's trace id, or a new trace.", schema: { type: "string" } },
  IdempotentReplayed: {
    description: "`true` when a duplicate of a keyed call got the original execution.",
    schema: { type: "string", enum: ["true"] },
  },
  Deprecation: {
    description: "RFC 9745: when the version was deprecated (`@<epoch seconds>`).",
    schema: { type: "string" },
  },
  Sunset: { description: "RFC 8594: when the version stops working.", schema: { type: "string" } },
};
export const executionHeaders = {
  traceparent: header("Traceparent"),
  "Idempotent-Replayed": header("IdempotentReplayed"),
  Deprecation: header("Deprecation"),
  Sunset: header("Sunset"),
};

/** The media type's schema is that of each event's `data` (the common idiom for SSE in OpenAPI 3.1). */
export const sse = { "text/event-stream": { schema: ref("StreamEvent") } };
export const SSE_NOTE =
  "Server-Sent Events: `retry:` first, then one frame per event (`id:` its seq, `event:` its type, `data:` the StreamEvent as JSON) and `: heartbeat` comments; exactly one terminal `done` or `error` event, then the stream closes.";

/** An operation anyone may call, without a credential. */
export const PUBLIC: never[] = [];
