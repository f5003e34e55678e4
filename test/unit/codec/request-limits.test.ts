/**
 * Bounded requests (docs/contract.md#limits): MessagePack bombs are a 400 before the decoder builds anything,
 * and `context` has bounds of its own (each string, the whole), refused with the field's path.
 */
import { encode } from "@msgpack/msgpack";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { msgpackNestsDeeper } from "../../../src/codec/msgpack-depth.ts";
import { RuntimeError } from "../../../src/errors.ts";
import { exceedsDepth, MAX_INPUT_DEPTH } from "../../../src/codec/input-depth.ts";
import { decodeBody } from "../../../src/codec/negotiate.ts";
import {
  MAX_CONTEXT_BYTES,
  MAX_CONTEXT_STRING_CHARS,
  parseExecutionRequest,
} from "../../../src/pipeline/initiation.ts";

const MSGPACK = "application/msgpack";

function refusal(fn: () => unknown): RuntimeError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return err as RuntimeError;
  }
  throw new Error("expected a refusal, nothing was thrown");
}

describe("MessagePack nesting, measured before decoding", () => {
  it("agrees with the JSON depth check on any document", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 9 }), (value, limit) => {
        expect(msgpackNestsDeeper(encode(value), limit)).toBe(exceedsDepth(value, limit));
      }),
      { numRuns: 500 },
    );
  });

  it("counts nesting through every container header (fix, 16 and 32 bit arrays and maps)", () => {
    const wrap = (inner: Uint8Array, header: number[]) => Uint8Array.from([...header, ...inner]);
    let doc = Uint8Array.from([0xc0]);
    const headers = [
      [0x91],
      [0xdc, 0, 1],
      [0xdd, 0, 0, 0, 1],
      [0x81, 0xa1, 0x6b],
      [0xde, 0, 1, 0xa1, 0x6b],
      [0xdf, 0, 0, 0, 1, 0xa1, 0x6b],
    ];
    for (const h of headers) doc = wrap(doc, h);
    expect(msgpackNestsDeeper(doc, headers.length)).toBe(false);
    expect(msgpackNestsDeeper(doc, headers.length - 1)).toBe(true);
  });

  it("skips strings, binaries, extensions and numbers by their lengths", () => {
    const value = {
      s: "x".repeat(300),
      b: new Uint8Array(70_000),
      n: [1, -1, 300, -300, 70_000, 2 ** 40, 1.5, -(2 ** 40)],
      d: new Date(0),
      t: true,
      z: null,
    };
    expect(msgpackNestsDeeper(encode(value), 2)).toBe(false);
    expect(msgpackNestsDeeper(encode([value]), 2)).toBe(true);
  });
});

describe("a MessagePack bomb is a 400 invalid_request", () => {
  it("refuses a 1 MiB body that nests a million arrays, without building them", () => {
    const bomb = new Uint8Array(1 << 20).fill(0x91);
    bomb[bomb.length - 1] = 0xc0;
    const err = refusal(() => decodeBody(bomb, MSGPACK));
    expect(err.code).toBe("invalid_request");
    expect(err.details).toEqual({ max_depth: MAX_INPUT_DEPTH });
  });

  it.each([
    ["an array of 4 billion items", [0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0]],
    ["a map of 4 billion entries", [0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0]],
    ["a 4 GiB string", [0xdb, 0xff, 0xff, 0xff, 0xff, 0x61]],
    ["a 4 GiB binary", [0xc6, 0xff, 0xff, 0xff, 0xff, 0x00]],
    ["a 4 GiB extension", [0xc9, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00]],
  ])("refuses %s declared in a few bytes", (_what, bytes) => {
    expect(refusal(() => decodeBody(Uint8Array.from(bytes), MSGPACK)).code).toBe("invalid_request");
  });

  it("still decodes an ordinary request", () => {
    expect(decodeBody(encode({ tool: "t", input: { list: [1, 2, 3], bin: new Uint8Array([1, 2]) } }), MSGPACK)).toEqual(
      { tool: "t", input: { list: [1, 2, 3], bin: new Uint8Array([1, 2]) } },
    );
  });
});

describe("context bounds", () => {
  const envelope = (context: unknown) => ({ tool: "math.evaluate", input: {}, context });

  it("refuses a 200,000-character correlation id, naming the field", () => {
    const err = refusal(() => parseExecutionRequest(envelope({ correlation_id: "c".repeat(200_000) })));
    expect(err.code).toBe("invalid_request");
    expect(err.details).toEqual({ field: "context.correlation_id", max_length: MAX_CONTEXT_STRING_CHARS });
  });

  it("names the path of a long string nested in the context", () => {
    const err = refusal(() =>
      parseExecutionRequest(envelope({ user: { tags: ["ok", "t".repeat(MAX_CONTEXT_STRING_CHARS + 1)] } })),
    );
    expect(err.details).toMatchObject({ field: "context.user.tags.1" });
  });

  it("refuses a key longer than a context string may be", () => {
    const err = refusal(() => parseExecutionRequest(envelope({ ["k".repeat(MAX_CONTEXT_STRING_CHARS + 1)]: 1 })));
    expect(err.code).toBe("invalid_request");
    expect(String(err.details?.field)).toMatch(/^context\.k{64}…$/);
  });

  it("refuses a context over its size as a whole, though each string fits", () => {
    const context = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`k${i}`, "v".repeat(MAX_CONTEXT_STRING_CHARS)]),
    );
    const err = refusal(() => parseExecutionRequest(envelope(context)));
    expect(err.details).toMatchObject({ field: "context", max_bytes: MAX_CONTEXT_BYTES });
  });

  it("accepts a context at its bounds", () => {
    const request = parseExecutionRequest(
      envelope({ correlation_id: "c".repeat(MAX_CONTEXT_STRING_CHARS), locale: "en" }),
    );
    expect(request.context.correlation_id).toHaveLength(MAX_CONTEXT_STRING_CHARS);
  });
});
