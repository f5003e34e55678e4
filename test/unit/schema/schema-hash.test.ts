import { describe, expect, it } from "vitest";
import { canonicalJson, schemaHash } from "../../../src/schema/schema-hash.ts";

describe("canonicalJson", () => {
  it("sorts keys at every depth", () => {
    const a = {
      type: "object",
      properties: { b: { type: "string", minLength: 1 }, a: { type: "integer" } },
      required: ["b", "a"],
    };
    const b = {
      required: ["b", "a"],
      properties: { a: { type: "integer" }, b: { minLength: 1, type: "string" } },
      type: "object",
    };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe(
      '{"properties":{"a":{"type":"integer"},"b":{"minLength":1,"type":"string"}},"required":["b","a"],"type":"object"}',
    );
  });

  it("sorts keys inside objects nested in arrays", () => {
    expect(canonicalJson([{ z: 1, a: 2 }])).toBe('[{"a":2,"z":1}]');
  });

  it("keeps array order, which is meaningful", () => {
    expect(canonicalJson(["b", "a"])).not.toBe(canonicalJson(["a", "b"]));
  });

  it("drops undefined properties as JSON.stringify does", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it("renders scalars as JSON", () => {
    expect([canonicalJson(true), canonicalJson(null), canonicalJson('x"y'), canonicalJson(1.5)]).toEqual([
      "true",
      "null",
      '"x\\"y"',
      "1.5",
    ]);
  });
});

describe("schemaHash", () => {
  const schema = {
    type: "object",
    properties: { url: { type: "string", format: "uri" }, method: { enum: ["GET", "POST"] } },
    required: ["url"],
  };
  const reordered = {
    required: ["url"],
    properties: { method: { enum: ["GET", "POST"] }, url: { format: "uri", type: "string" } },
    type: "object",
  };

  it("is 32 lowercase hex characters", async () => {
    expect(await schemaHash(schema)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("is the same for the same schema with its keys in another order", async () => {
    expect(await schemaHash(reordered)).toBe(await schemaHash(schema));
  });

  it("differs for schemas that differ in a nested value", async () => {
    const changed = {
      ...schema,
      properties: { ...schema.properties, url: { type: "string", format: "uri-reference" } },
    };
    expect(await schemaHash(changed)).not.toBe(await schemaHash(schema));
  });

  it("differs for schemas that differ only in array order", async () => {
    expect(await schemaHash({ enum: ["a", "b"] })).not.toBe(await schemaHash({ enum: ["b", "a"] }));
  });

  it("differs between true and an empty object schema", async () => {
    expect(await schemaHash(true)).not.toBe(await schemaHash({}));
  });

  it("is the first 16 bytes of the SHA-256 of the canonical JSON", async () => {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode('{"a":1,"b":2}')));
    const expected = [...digest.subarray(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(await schemaHash({ b: 2, a: 1 })).toBe(expected);
  });
});
