/**
 * Every item of a paginated listing, page after page: follows `next_cursor` until the runtime
 * says there is no more (`null`). Pages are fetched only as the caller iterates, so breaking
 * out of the loop stops the requests.
 */
import { localError } from "./errors.ts";

/** Fetches one page from `cursor` (undefined: the first). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>;

export async function* allPages<T>(fetchPage: PageFetcher<T>, first?: string): AsyncGenerator<T> {
  let cursor = first;
  const seen = new Set<string>();
  for (;;) {
    const { items, next_cursor } = await fetchPage(cursor);
    yield* items;
    if (next_cursor === null || next_cursor === undefined) return;
    // A cursor seen before would loop for ever; the runtime never sends one.
    if (seen.has(next_cursor))
      throw localError(
        "bad_response",
        `the runtime sent the cursor ${next_cursor.slice(0, 40)} twice; stopping rather than looping`,
      );
    seen.add(next_cursor);
    cursor = next_cursor;
  }
}
