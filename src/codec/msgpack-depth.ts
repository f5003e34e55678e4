/**
 * How deeply a MessagePack document nests, found by walking its headers without building a
 * value. @msgpack/msgpack decodes without recursion but keeps a state object per open array or
 * map and has no depth limit: a 1 MiB body of 0x91 bytes (an array holding an array holding …)
 * nests a million levels and takes about 160 MB and 1.5 s to decode under Node 22 (measured),
 * over a Worker's 128 MB. So the depth is checked before the decoder runs. Linear time; the
 * only memory is one counter per open container, at most `limit` of them.
 */

/**
 * True when `bytes` opens more than `limit` nested arrays or maps. A document that is malformed
 * or cut short answers false here: the decoder refuses it with its own message.
 */
export function msgpackNestsDeeper(bytes: Uint8Array, limit: number): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  /** Items still to come in each open container (a map's entries count twice). */
  const open: number[] = [];
  let pos = 0;
  const fits = (n: number) => pos + n <= bytes.byteLength;
  while (pos < bytes.byteLength) {
    const b = bytes[pos++];
    let items = -1; // ≥ 0: this value is a container holding that many items
    let skip = 0; // payload bytes after the header
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) skip = 0;
    else if (b <= 0x8f) items = (b & 0x0f) * 2;
    else if (b <= 0x9f) items = b & 0x0f;
    else if (b <= 0xbf) skip = b & 0x1f;
    else {
      const sized = SIZED[b];
      if (sized === undefined) return false; // 0xc1 is never used: the decoder says so
      const [lengthBytes, extra, kind] = sized;
      if (!fits(lengthBytes)) return false;
      const n =
        lengthBytes === 0
          ? 0
          : lengthBytes === 1
            ? view.getUint8(pos)
            : lengthBytes === 2
              ? view.getUint16(pos)
              : view.getUint32(pos);
      pos += lengthBytes;
      if (kind === "array") items = n;
      else if (kind === "map") items = n * 2;
      else skip = n + extra;
    }
    pos += skip;
    if (items >= 0) {
      if (open.length >= limit) return true;
      if (items > 0) {
        open.push(items);
        continue;
      }
    }
    // A complete value: it fills one item of its container, which may complete it in turn.
    while (open.length > 0 && --open[open.length - 1] === 0) open.pop();
  }
  return false;
}

/** Header bytes after 0xc0 with a length field: [length field bytes, fixed extra bytes, kind]. */
const SIZED: Record<number, [0 | 1 | 2 | 4, number, "bytes" | "array" | "map"]> = {
  0xc4: [1, 0, "bytes"],
  0xc5: [2, 0, "bytes"],
  0xc6: [4, 0, "bytes"], // bin 8/16/32
  0xc7: [1, 1, "bytes"],
  0xc8: [2, 1, "bytes"],
  0xc9: [4, 1, "bytes"], // ext 8/16/32 (+ type byte)
  0xca: [0, 4, "bytes"],
  0xcb: [0, 8, "bytes"], // float 32/64
  0xcc: [0, 1, "bytes"],
  0xcd: [0, 2, "bytes"],
  0xce: [0, 4, "bytes"],
  0xcf: [0, 8, "bytes"], // uint
  0xd0: [0, 1, "bytes"],
  0xd1: [0, 2, "bytes"],
  0xd2: [0, 4, "bytes"],
  0xd3: [0, 8, "bytes"], // int
  0xd4: [0, 2, "bytes"],
  0xd5: [0, 3, "bytes"],
  0xd6: [0, 5, "bytes"],
  0xd7: [0, 9, "bytes"],
  0xd8: [0, 17, "bytes"], // fixext
  0xd9: [1, 0, "bytes"],
  0xda: [2, 0, "bytes"],
  0xdb: [4, 0, "bytes"], // str 8/16/32
  0xdc: [2, 0, "array"],
  0xdd: [4, 0, "array"],
  0xde: [2, 0, "map"],
  0xdf: [4, 0, "map"],
};
