/**
 * docs/contract.md#coercion lenient mode through `$ref`, `anyOf`, `oneOf` and `allOf`. The contract's examples:
 * null → "en" (Null, Any with default), 42 stays 42 (Integer → Number), "42" is not made a
 * number (String → Number/Integer rejected: left for validation to refuse).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../../providers/sdk/protocol.ts";
import { coerceLenient } from "../../../src/schema/coercion.ts";

const schema = (s: Record<string, unknown>) => s as JsonSchema;
const lang = { type: "string", default: "en" };

describe("lenient coercion through local $ref", () => {
  it('replaces null with the default of the schema a $ref names (null → "en")', () => {
    const s = schema({ type: "object", $defs: { lang }, properties: { lang: { $ref: "#/$defs/lang" } } });
    expect(coerceLenient(s, { lang: null })).toEqual({ lang: "en" });
  });

  it("prefers a default written beside the $ref to the one it names", () => {
    const s = schema({
      type: "object",
      $defs: { lang },
      properties: { lang: { $ref: "#/$defs/lang", default: "fr" } },
    });
    expect(coerceLenient(s, { lang: null })).toEqual({ lang: "fr" });
  });

  it("follows refs to refs, and old-style definitions", () => {
    const s = schema({
      type: "object",
      definitions: { a: { $ref: "#/definitions/b" }, b: lang },
      properties: { lang: { $ref: "#/definitions/a" } },
    });
    expect(coerceLenient(s, { lang: null })).toEqual({ lang: "en" });
  });

  it("walks into the object a $ref names", () => {
    const s = schema({
      type: "object",
      $defs: { prefs: { type: "object", properties: { lang, units: { type: "string", default: "metric" } } } },
      properties: { prefs: { $ref: "#/$defs/prefs" } },
    });
    expect(coerceLenient(s, { prefs: { lang: null, units: "imperial" } })).toEqual({
      prefs: { lang: "en", units: "imperial" },
    });
  });

  it("reads JSON Pointer escapes in a $ref (~1 is /, ~0 is ~, percent-encoding)", () => {
    const s = schema({
      type: "object",
      $defs: { "a/b": lang, "c~d": { type: "integer", default: 3 }, "e f": { type: "boolean", default: true } },
      properties: { x: { $ref: "#/$defs/a~1b" }, y: { $ref: "#/$defs/c~0d" }, z: { $ref: "#/$defs/e%20f" } },
    });
    expect(coerceLenient(s, { x: null, y: null, z: null })).toEqual({ x: "en", y: 3, z: true });
  });

  it("follows a recursive schema as deep as the value goes", () => {
    const s = schema({
      $ref: "#/$defs/node",
      $defs: {
        node: {
          type: "object",
          properties: { label: lang, children: { type: "array", items: { $ref: "#/$defs/node" } } },
        },
      },
    });
    const value = { label: null, children: [{ label: "de", children: [{ label: null }] }] };
    expect(coerceLenient(s, value)).toEqual({ label: "en", children: [{ label: "de", children: [{ label: "en" }] }] });
  });

  it("stops at a schema that only refers to itself", () => {
    expect(coerceLenient(schema({ $ref: "#" }), { a: null })).toEqual({ a: null });
    expect(coerceLenient(schema({ $ref: "#" }), null)).toBeNull();
  });

  it("ignores refs outside the document and refs to nothing", () => {
    const s = schema({
      type: "object",
      properties: { a: { $ref: "https://example.com/lang.json" }, b: { $ref: "#/$defs/missing" } },
    });
    expect(coerceLenient(s, { a: null, b: null })).toEqual({ a: null, b: null });
  });

  it("keeps null when the named schema admits null", () => {
    const s = schema({
      type: "object",
      $defs: { note: { type: ["string", "null"], default: "none" } },
      properties: { note: { $ref: "#/$defs/note" } },
    });
    expect(coerceLenient(s, { note: null })).toEqual({ note: null });
  });
});

describe("lenient coercion through anyOf and oneOf", () => {
  for (const key of ["anyOf", "oneOf"]) {
    it(`${key}: replaces null with the only default among the branches (null → "en")`, () => {
      const s = schema({ type: "object", properties: { lang: { [key]: [lang, { type: "integer", minimum: 0 }] } } });
      expect(coerceLenient(s, { lang: null })).toEqual({ lang: "en" });
    });

    it(`${key}: uses the default written on the ${key} itself`, () => {
      const s = schema({
        type: "object",
        properties: { lang: { [key]: [{ type: "string" }, { type: "integer" }], default: "en" } },
      });
      expect(coerceLenient(s, { lang: null })).toEqual({ lang: "en" });
    });

    it(`${key}: keeps null when a branch admits null`, () => {
      for (const nullable of [
        { type: "null" },
        { type: ["integer", "null"] },
        { const: null },
        { enum: ["x", null] },
      ]) {
        const s = schema({ type: "object", properties: { lang: { [key]: [lang, nullable] } } });
        expect(coerceLenient(s, { lang: null })).toEqual({ lang: null });
      }
    });

    it(`${key}: keeps null when branches disagree on the default`, () => {
      const s = schema({ type: "object", properties: { lang: { [key]: [lang, { type: "integer", default: 7 }] } } });
      expect(coerceLenient(s, { lang: null })).toEqual({ lang: null });
    });

    it(`${key}: takes a default from a branch that is a $ref`, () => {
      const s = schema({
        type: "object",
        $defs: { lang },
        properties: { lang: { [key]: [{ $ref: "#/$defs/lang" }, { type: "boolean" }] } },
      });
      expect(coerceLenient(s, { lang: null })).toEqual({ lang: "en" });
    });

    it(`${key}: walks into the branch an object fits, chosen by its discriminator`, () => {
      const s = schema({
        type: "object",
        properties: {
          shape: {
            [key]: [
              {
                type: "object",
                required: ["kind"],
                properties: { kind: { const: "circle" }, radius: { type: "number", default: 1 } },
              },
              {
                type: "object",
                required: ["kind"],
                properties: {
                  kind: { const: "square" },
                  side: { type: "number", default: 2 },
                  unit: { enum: ["cm", "in"], default: "cm" },
                },
              },
            ],
          },
        },
      });
      expect(coerceLenient(s, { shape: { kind: "square", side: null, unit: null } })).toEqual({
        shape: { kind: "square", side: 2, unit: "cm" },
      });
      expect(coerceLenient(s, { shape: { kind: "circle", radius: null } })).toEqual({
        shape: { kind: "circle", radius: 1 },
      });
    });

    it(`${key}: leaves an object alone when the branches it fits would coerce it differently`, () => {
      const s = schema({
        [key]: [
          { type: "object", properties: { unit: { type: "string", default: "cm" } } },
          { type: "object", properties: { unit: { type: "string", default: "in" } } },
        ],
      });
      expect(coerceLenient(s, { unit: null })).toEqual({ unit: null });
    });

    it(`${key}: coerces when every branch it fits agrees`, () => {
      const s = schema({
        [key]: [
          {
            type: "object",
            required: ["a"],
            properties: { a: { type: "integer" }, unit: { type: "string", default: "cm" } },
          },
          {
            type: "object",
            required: ["b"],
            properties: { b: { type: "integer" }, unit: { type: "string", default: "in" } },
          },
          { type: "array" },
        ],
      });
      expect(coerceLenient(s, { a: 1, unit: null })).toEqual({ a: 1, unit: "cm" });
      expect(coerceLenient(s, { b: 1, unit: null })).toEqual({ b: 1, unit: "in" });
    });

    it(`${key}: rules out a closed branch by the keys the value has`, () => {
      const s = schema({
        [key]: [
          {
            type: "object",
            additionalProperties: false,
            properties: { a: { type: "integer" }, unit: { type: "string", default: "cm" } },
          },
          {
            type: "object",
            additionalProperties: false,
            properties: { b: { type: "integer" }, unit: { type: "string", default: "in" } },
          },
        ],
      });
      expect(coerceLenient(s, { b: 2, unit: null })).toEqual({ b: 2, unit: "in" });
    });
  }

  it("allOf: applies every branch", () => {
    const s = schema({
      allOf: [{ type: "object", properties: { lang } }, { $ref: "#/$defs/size" }],
      $defs: { size: { type: "object", properties: { size: { type: "integer", default: 10 } } } },
    });
    expect(coerceLenient(s, { lang: null, size: null })).toEqual({ lang: "en", size: 10 });
  });
});

describe("lenient coercion keeps the rest of docs/contract.md#coercion inside combinators", () => {
  const s = schema({
    type: "object",
    $defs: { n: { type: "number", default: 1 }, i: { type: "integer", default: 2 } },
    properties: { n: { anyOf: [{ $ref: "#/$defs/n" }] }, i: { oneOf: [{ $ref: "#/$defs/i" }, { type: "boolean" }] } },
  });

  it("leaves an integer for a number as it is (42 → 42)", () => {
    expect(coerceLenient(s, { n: 42, i: 7 })).toEqual({ n: 42, i: 7 });
  });

  it('does not turn a numeric string into a number ("42" stays "42")', () => {
    expect(coerceLenient(s, { n: "42", i: "42" })).toEqual({ n: "42", i: "42" });
  });

  it("never mutates the caller's value and gives each call its own default", () => {
    const deep = schema({
      type: "object",
      $defs: { opts: { type: "object", default: { tags: ["a"] } } },
      properties: { opts: { $ref: "#/$defs/opts" } },
    });
    const input = { opts: null };
    const first = coerceLenient(deep, input) as { opts: { tags: string[] } };
    first.opts.tags.push("mutated");
    expect(coerceLenient(deep, input)).toEqual({ opts: { tags: ["a"] } });
    expect(input).toEqual({ opts: null });
  });
});

describe("lenient coercion through prefixItems and additionalProperties", () => {
  it("replaces null tuple members and map values with their defaults", () => {
    const s = schema({
      type: "object",
      properties: {
        pair: {
          type: "array",
          prefixItems: [lang, { type: "integer", default: 0 }],
          items: { type: "boolean", default: false },
        },
        labels: { type: "object", additionalProperties: lang },
      },
    });
    expect(coerceLenient(s, { pair: [null, null, null], labels: { a: null, b: "de" } })).toEqual({
      pair: ["en", 0, false],
      labels: { a: "en", b: "de" },
    });
  });
});

describe("lenient coercion, for any value", () => {
  const s = schema({
    $defs: {
      node: {
        anyOf: [
          { type: "object", properties: { v: lang }, additionalProperties: { $ref: "#/$defs/node" } },
          { type: "array", items: { $ref: "#/$defs/node" } },
          { type: "string", default: "x" },
        ],
      },
    },
    $ref: "#/$defs/node",
  });

  it("changes nothing but nulls, and never throws or mutates", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const before = JSON.stringify(value);
        const out = coerceLenient(s, value);
        expect(JSON.stringify(value)).toBe(before);
        if (!before.includes("null")) expect(out).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });
});

describe("lenient coercion: a default never overrides an explicit null", () => {
  it("keeps null when a branch admits it, even with a default on the anyOf itself", () => {
    const s = schema({
      type: "object",
      properties: { note: { anyOf: [{ type: "string" }, { type: "null" }], default: "none" } },
    });
    expect(coerceLenient(s, { note: null })).toEqual({ note: null });
  });

  it("keeps null when the $ref target's branches admit it", () => {
    const s = schema({
      type: "object",
      $defs: { note: { oneOf: [{ type: "string" }, { const: null }] } },
      properties: { note: { $ref: "#/$defs/note", default: "none" } },
    });
    expect(coerceLenient(s, { note: null })).toEqual({ note: null });
  });
});

describe("lenient coercion of cyclic schemas", () => {
  it("ends on branches that refer back to their own combinator", () => {
    const s = schema({
      $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }, { oneOf: [{ $ref: "#/$defs/a" }] }] } },
      type: "object",
      properties: { x: { $ref: "#/$defs/a" } },
    });
    expect(coerceLenient(s, { x: null })).toEqual({ x: null });
    expect(coerceLenient(s, { x: { y: 1 } })).toEqual({ x: { y: 1 } });
  });
});
