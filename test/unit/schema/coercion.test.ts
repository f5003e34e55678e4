import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../../providers/sdk/protocol.ts";
import { coerceLenient } from "../../../src/schema/coercion.ts";

const schema = (s: Record<string, unknown>) => s as JsonSchema;

describe("coerceLenient (docs/contract.md#coercion)", () => {
  it("replaces a null property with the schema's default", () => {
    const s = schema({ type: "object", properties: { lang: { type: "string", default: "en" } } });
    expect(coerceLenient(s, { lang: null })).toEqual({ lang: "en" });
  });

  it("replaces a null top-level value with the schema's default", () => {
    expect(coerceLenient(schema({ type: "integer", default: 3 }), null)).toBe(3);
  });

  it("gives each call its own copy of an object default", () => {
    const s = schema({ type: "object", properties: { opts: { type: "object", default: { depth: 1, tags: ["a"] } } } });
    const first = coerceLenient(s, { opts: null }) as { opts: { depth: number; tags: string[] } };
    first.opts.depth = 99;
    first.opts.tags.push("mutated");
    const second = coerceLenient(s, { opts: null });
    expect(second).toEqual({ opts: { depth: 1, tags: ["a"] } });
  });

  it("does not mutate the caller's value", () => {
    const s = schema({
      type: "object",
      properties: {
        lang: { type: "string", default: "en" },
        inner: { type: "object", properties: { n: { type: "number", default: 0 } } },
      },
    });
    const input = { lang: null, inner: { n: null } };
    const out = coerceLenient(s, input);
    expect(out).toEqual({ lang: "en", inner: { n: 0 } });
    expect(input).toEqual({ lang: null, inner: { n: null } });
    expect(out).not.toBe(input);
  });

  it("keeps null when the schema's type allows null, even with a default", () => {
    const s = schema({ type: "object", properties: { note: { type: ["string", "null"], default: "none" } } });
    expect(coerceLenient(s, { note: null })).toEqual({ note: null });
  });

  it("keeps null when the schema's type is exactly null", () => {
    expect(coerceLenient(schema({ type: "null", default: "x" }), null)).toBeNull();
  });

  it("keeps null when the schema has no default", () => {
    const s = schema({ type: "object", properties: { lang: { type: "string" } } });
    expect(coerceLenient(s, { lang: null })).toEqual({ lang: null });
  });

  it("leaves a numeric string alone for a number schema, so validation rejects it", () => {
    const s = schema({
      type: "object",
      properties: { n: { type: "number", default: 1 }, i: { type: "integer", default: 2 } },
    });
    expect(coerceLenient(s, { n: "42", i: "42" })).toEqual({ n: "42", i: "42" });
  });

  it("leaves an integer for a number schema as it is", () => {
    const s = schema({ type: "object", properties: { n: { type: "number" } } });
    expect(coerceLenient(s, { n: 42 })).toEqual({ n: 42 });
  });

  it("does not add absent properties, even ones with a default", () => {
    const s = schema({
      type: "object",
      properties: { lang: { type: "string", default: "en" }, n: { type: "number", default: 1 } },
    });
    expect(coerceLenient(s, {})).toEqual({});
    expect(Object.keys(coerceLenient(s, { n: 5 }) as object)).toEqual(["n"]);
  });

  it("keeps properties the schema does not describe", () => {
    const s = schema({ type: "object", properties: { lang: { type: "string", default: "en" } } });
    expect(coerceLenient(s, { lang: null, extra: null })).toEqual({ lang: "en", extra: null });
  });

  it("replaces null defaults in nested objects", () => {
    const s = schema({
      type: "object",
      properties: {
        outer: {
          type: "object",
          properties: { inner: { type: "object", properties: { unit: { type: "string", default: "ms" } } } },
        },
      },
    });
    expect(coerceLenient(s, { outer: { inner: { unit: null } } })).toEqual({ outer: { inner: { unit: "ms" } } });
  });

  it("replaces null defaults inside each object of an array", () => {
    const s = schema({
      type: "object",
      properties: {
        rows: { type: "array", items: { type: "object", properties: { qty: { type: "integer", default: 1 } } } },
      },
    });
    const input = { rows: [{ qty: null }, { qty: 4 }, {}] };
    expect(coerceLenient(s, input)).toEqual({ rows: [{ qty: 1 }, { qty: 4 }, {}] });
    expect(input.rows[0]).toEqual({ qty: null });
  });

  it("replaces null array elements with the items default", () => {
    const s = schema({ type: "array", items: { type: "string", default: "?" } });
    expect(coerceLenient(s, ["a", null, "c"])).toEqual(["a", "?", "c"]);
  });

  it("leaves arrays alone when items is a tuple list rather than one schema", () => {
    const s = schema({ type: "array", items: [{ type: "string", default: "?" }] });
    expect(coerceLenient(s, [null])).toEqual([null]);
  });

  it("passes values through a boolean schema unchanged", () => {
    expect(coerceLenient(true as unknown as JsonSchema, { a: null })).toEqual({ a: null });
  });
});
