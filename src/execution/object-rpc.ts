/**
 * What the execution object's RPC methods take and give (durable-objects/execution-object.ts):
 * the edge's side of a start, a keyed call and a subscription.
 */
import type { Caller, ExecutionRequest, ExecutionView, Face } from "../contract.ts";
import type { DeprecationNotice } from "../registry/catalog.ts";
import type { TraceContext } from "../audit/trace.ts";

/** What a start asks for: wait for the end (sync), answer when accepted (async), or subscribe too (stream). */
export type Delivery = "end" | "accepted" | "stream";

export interface StartAnswer {
  view: ExecutionView;
  /** A keyed duplicate: the original execution (docs/contract.md#idempotency). */
  replayed: boolean;
  /** The event stream (NDJSON lines), when the delivery was "stream". */
  stream?: ReadableStream<Uint8Array>;
  deprecation?: DeprecationNotice;
}

/** A keyed call as the edge hands it over: stage 1 done, the rest runs here, once per key. */
export interface KeyedCall {
  caller: Caller;
  request: ExecutionRequest;
  fingerprint: string;
  accepted_at: number;
  trace: TraceContext;
  face: Face;
  /** Its rate token was taken at the edge (every keyed request takes one, duplicates too). */
  paid?: boolean;
}

export type EventsAnswer = { kind: "stream"; stream: ReadableStream<Uint8Array> } | { kind: "ended" };
