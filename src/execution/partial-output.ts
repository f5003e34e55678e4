/**
 * A tool's partial output (docs/contract.md#partial-output:
 * what the provider emitted before it stopped): how each `partial` event folds into what the execution shows as
 * `partial_output`. The rule is the tool's `partial_merge` (providers/sdk/protocol.ts):
 *
 *   replace (default)  the event's data is the whole partial output so far
 *   append             the data is a JSON array whose items are appended, or a string that
 *                      is concatenated; one execution keeps to one of the two
 *
 * The provider SDK refuses other shapes at emit time; a provider built without it may still
 * send one, so the runtime checks too and throws PartialShapeError.
 */
import type { PartialMerge } from "../../providers/sdk/protocol.ts";

export class PartialShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PartialShapeError";
  }
}

/**
 * The partial output after one more `partial` event. `previous` is undefined before the
 * first; a missing rule is "replace". Never changes `previous` (a new array is returned).
 */
export function mergePartial(rule: PartialMerge | undefined, previous: unknown, data: unknown): unknown {
  if (rule !== "append") return data;
  if (Array.isArray(data)) {
    if (previous === undefined) return [...data];
    if (Array.isArray(previous)) return previous.concat(data);
    throw new PartialShapeError(`cannot append an array to a partial output that is ${shapeOf(previous)}`);
  }
  if (typeof data === "string") {
    if (previous === undefined) return data;
    if (typeof previous === "string") return previous + data;
    throw new PartialShapeError(`cannot append a string to a partial output that is ${shapeOf(previous)}`);
  }
  throw new PartialShapeError(`an appended partial event must be a JSON array or a string, not ${shapeOf(data)}`);
}

/**
 * The partial output of a whole sequence of `partial` events, in linear time (rebuilding it
 * from an event log: folding with mergePartial copies the array at every step).
 */
export function foldPartials(rule: PartialMerge | undefined, events: readonly unknown[]): unknown {
  if (events.length === 0) return undefined;
  if (rule !== "append") return events[events.length - 1];
  // Checked one by one as mergePartial would (its first step only copies `data`), joined once.
  mergePartial("append", undefined, events[0]);
  if (typeof events[0] === "string") {
    for (const data of events) mergePartial("append", "", data);
    return (events as string[]).join("");
  }
  const items: unknown[] = [];
  for (const data of events) {
    mergePartial("append", [], data);
    for (const item of data as unknown[]) items.push(item);
  }
  return items;
}

function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * An execution's partial output as it grows, merged by the tool's rule without copying what
 * came before: appended items and text are collected and joined once, when asked for.
 */
export class PartialOutput {
  readonly #rule: PartialMerge | undefined;
  #last: unknown = undefined;
  #items: unknown[] | undefined;
  #text: string[] | undefined;

  constructor(rule: PartialMerge | undefined) {
    this.#rule = rule;
  }

  /** Adds one `partial` event's data; throws PartialShapeError when it does not fit the rule. */
  add(data: unknown): void {
    if (this.#rule !== "append") {
      this.#last = data;
      return;
    }
    const previous = this.#items ? [] : this.#text ? "" : undefined;
    mergePartial("append", previous, data); // checks the shape against what came before
    if (Array.isArray(data)) (this.#items ??= []).push(...data);
    else (this.#text ??= []).push(data as string);
  }

  /** The merged partial output so far (undefined before any partial event). */
  value(): unknown {
    if (this.#rule !== "append") return this.#last;
    if (this.#items) return this.#items;
    if (this.#text) return this.#text.join("");
    return undefined;
  }
}
