/**
 * How deeply a decoded JSON value nests, checked without recursion. A 1 MiB body of "[[[[…"
 * parses (V8's JSON.parse is iterative) but nests ~500,000 levels, and everything after the
 * parse recurses: structured clone for Workers RPC and Durable Object storage, JSON.stringify,
 * schema validation all throw "Maximum call stack size exceeded" on it (seen under Node 22).
 * Refusing such input at decode time turns that into a clear invalid_request.
 */

/** Nesting allowed by default: far beyond any real document, far below any stack limit. */
export const MAX_INPUT_DEPTH = 256;

/** True when `value` has arrays/objects nested more than `limit` levels deep. Linear time. */
export function exceedsDepth(value: unknown, limit: number = MAX_INPUT_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}
