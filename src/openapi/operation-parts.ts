/**
 * The pieces the document's operations are made of: JSON and MessagePack bodies, the shared
 * path and query parameters, the header components and their references, the SSE media type,
 * and an operation's public security.
 */
import { EXECUTION_STATUSES, ref } from "./schema-builders.ts";

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

export const path = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
export const query = (name: string, schema: object, description: string) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
export const executionId = path(
  "id",
  "An execution id (exec_…). Unknown, expired and other tenants' ids answer alike.",
);
export const listFilters = [
  query("tool", { type: "string" }, "Only this tool."),
  query("status", { type: "string", enum: EXECUTION_STATUSES }, "Only this status."),
  query("since", { type: "string", format: "date-time" }, "Accepted (index) or ended (audit) at or after."),
  query("until", { type: "string", format: "date-time" }, "… and before."),
  query("limit", { type: "integer", minimum: 1, maximum: 100, default: 50 }, "Page size."),
  query("cursor", { type: "string" }, "`next_cursor` of the previous page."),
];

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
