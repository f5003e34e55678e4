/**
 * RFC 6901 JSON Pointer: parsing a pointer into reference tokens and resolving it in a
 * document. Pure, so the tool and its tests share one reading of the RFC.
 */

/** A pointer that RFC 6901 §3 does not allow; `resolvePointer` never throws anything else. */
export class MalformedPointer extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedPointer";
  }
}

export type Resolution = { found: true; value: unknown } | { found: false };

// §4: "~" may only be followed by "0" or "1".
const BAD_ESCAPE = /~(?![01])/;
// §4: an array index is "0" or digits without a leading zero; "-" names the element past the end.
const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/"))
    throw new MalformedPointer(
      `a JSON Pointer is empty or starts with "/", got ${JSON.stringify(pointer.slice(0, 50))}`,
    );
  return pointer
    .slice(1)
    .split("/")
    .map((token) => {
      if (BAD_ESCAPE.test(token))
        throw new MalformedPointer(`"~" must be followed by 0 or 1 in ${JSON.stringify(token.slice(0, 50))}`);
      // §4: ~1 first, then ~0, so "~01" becomes "~1" and not "/".
      return token.replaceAll("~1", "/").replaceAll("~0", "~");
    });
}

/** Finds what `pointer` names in `document`; a path that leads nowhere is `{found: false}`. */
export function resolvePointer(document: unknown, pointer: string): Resolution {
  let current = document;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token) || Number(token) >= current.length) return { found: false };
      current = current[Number(token)];
    } else if (current !== null && typeof current === "object") {
      // Own keys only: "__proto__" or "constructor" must not reach Object.prototype.
      if (!Object.hasOwn(current, token)) return { found: false };
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
