/**
 * Schemas known only at run time (an upstream's tools) are judged by @cfworker/json-schema, and
 * a caller must not be able to tell: the violations come out as the prebuilt (ajv) validators
 * give them — the same JSON Pointer paths and keywords — for the same input.
 */
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../../providers/sdk/protocol.ts";
import { checkOutput, validateInput, type ValidatorTable } from "../../../src/pipeline/schema.ts";
import { RuntimeError } from "../../../src/errors.ts";
import { runtimeValidator, SchemaUnusableError } from "../../../src/schema/runtime-validator.ts";
import { schemaHash } from "../../../src/schema/schema-hash.ts";
import { AJV_OPTIONS } from "../../../scripts/build-schemas.ts";

const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    a: { type: "integer", minimum: 3 },
    c: { type: "integer" },
    b: { type: "array", items: { type: "string" }, maxItems: 3 },
    "x/y": { type: "string", enum: ["one", "two"] },
    nested: {
      type: "object",
      properties: { deep: { type: "boolean" } },
      required: ["deep"],
      additionalProperties: false,
    },
  },
  required: ["a", "c"],
  additionalProperties: false,
};

const INPUTS: unknown[] = [
  { a: 5, c: 1 },
  { a: 1, c: 1 },
  { c: 1 },
  { a: 4, c: 1, extra: true },
  { a: 4, c: 1, b: ["x", 2, "y", "z"] },
  { a: 4, c: 1, "x/y": "three" },
  { a: 4, c: 1, nested: { deep: "no", more: 1 } },
  { a: 4, c: 1, nested: {} },
  "not an object",
  null,
];

/** What a violation list says, order aside: where and which rule. */
const said = (violations: { path: string; keyword: string }[]) =>
  violations.map((v) => `${v.keyword} ${v.path}`).sort();

async function both(schema: JsonSchema, input: unknown) {
  const hash = await schemaHash(schema);
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, esm: false, source: false } });
  const prebuilt: ValidatorTable = { [hash]: ajv.compile(schema as object) };
  return { prebuilt: checkOutput(input, hash, prebuilt), runtime: checkOutput(input, hash, {}, schema) };
}

describe("run-time schemas (docs/contract.md#validation)", () => {
  it("reports the same violations, by path and keyword, as the build-time validators", async () => {
    for (const input of INPUTS) {
      const { prebuilt, runtime } = await both(SCHEMA, input);
      expect({ input, violations: said(runtime) }).toEqual({ input, violations: said(prebuilt) });
    }
  });

  it("points a missing or an extra property at the property itself, with the prebuilt messages", async () => {
    const { runtime } = await both(SCHEMA, { a: 4, extra: 1 });
    expect(runtime).toEqual(
      expect.arrayContaining([
        { path: "/c", message: "is required", keyword: "required" },
        { path: "/extra", message: "is not an allowed property", keyword: "additionalProperties" },
      ]),
    );
  });

  it("refuses invalid input as invalid_input listing the violations, without a prebuilt validator", async () => {
    const hash = await schemaHash(SCHEMA);
    const refused = (() => {
      try {
        validateInput({ a: 1 }, { hash, schema: SCHEMA, coercion: "strict" }, {});
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(RuntimeError);
    expect((refused as RuntimeError).code).toBe("invalid_input");
    expect(said((refused as RuntimeError).details!.violations as never)).toEqual(["minimum /a", "required /c"]);
    expect((refused as RuntimeError).details!.violations).toContainEqual({
      path: "/c",
      message: "is required",
      keyword: "required",
    });
    expect(validateInput({ a: 3, c: 0 }, { hash, schema: SCHEMA, coercion: "strict" }, {})).toEqual({ a: 3, c: 0 });
  });

  it("takes draft 2020-12 when a schema names none, and refuses a draft it cannot honour", async () => {
    const tuple: JsonSchema = { type: "array", prefixItems: [{ type: "string" }], items: false };
    expect(checkOutput(["x"], await schemaHash(tuple), {}, tuple)).toEqual([]);
    expect(checkOutput(["x", "y"], await schemaHash(tuple), {}, tuple).length).toBeGreaterThan(0);
    expect(() => runtimeValidator("odd", { $schema: "https://example.com/my-dialect", type: "object" })).toThrow(
      SchemaUnusableError,
    );
  });

  it("refuses a schema whose $ref cannot be resolved before any call meets it", () => {
    expect(() =>
      runtimeValidator("broken-ref", { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }),
    ).toThrow(SchemaUnusableError);
    expect(() =>
      runtimeValidator("remote-ref", {
        type: "object",
        properties: { a: { $ref: "https://example.com/schema.json" } },
      }),
    ).toThrow(SchemaUnusableError);
    expect(() =>
      runtimeValidator("good-ref", {
        type: "object",
        properties: { a: { $ref: "#/$defs/n" } },
        $defs: { n: { type: "number" } },
      }),
    ).not.toThrow();
  });
});
