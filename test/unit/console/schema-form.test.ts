/** The Try-it form's model (console/src/lib/schema-form.ts): which schemas become forms, and how fields edit the JSON. */
import { describe, expect, it } from "vitest";
import { fieldValue, formFor, isInvalid, withField, type Field } from "../../../console/src/lib/schema-form.ts";

describe("the form generated from an input schema", () => {
  it("makes a field per property with kind, requiredness, bounds and help", () => {
    const model = formFor({
      type: "object",
      required: ["from"],
      properties: {
        from: { type: "integer", minimum: 0, maximum: 1000 },
        label: { type: "string", description: "shown above" },
        mode: { enum: ["fast", "slow"] },
        loud: { type: "boolean" },
        tags: { type: "array", items: { type: "string" } },
      },
    });
    expect(model.ok && model.fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ["from", "integer", true],
      ["label", "text", false],
      ["mode", "select", false],
      ["loud", "boolean", false],
      ["tags", "list", false],
    ]);
    expect(model.ok && model.fields[0]).toMatchObject({ min: 0, max: 1000 });
  });

  it("refuses, naming the field, what a form cannot show well", () => {
    expect(formFor({ type: "object", properties: { document: {} } })).toEqual({
      ok: false,
      reason: 'field "document" has no type',
    });
    expect(formFor({ type: "object", properties: { headers: { type: "object" } } })).toEqual({
      ok: false,
      reason: 'field "headers" is of type object',
    });
    expect(formFor({ type: "object", properties: { x: { oneOf: [] } } })).toMatchObject({
      ok: false,
      reason: 'field "x" uses oneOf',
    });
    expect(formFor({ type: "array" })).toMatchObject({ ok: false });
    expect(formFor(undefined)).toMatchObject({ ok: false });
  });

  it("turns field text into values, or says why it cannot", () => {
    const int: Field = { name: "n", kind: "integer", required: true, label: "n" };
    expect(fieldValue(int, "12")).toBe(12);
    expect(isInvalid(fieldValue(int, "1.5"))).toBe(true);
    expect(fieldValue(int, "  ")).toBeUndefined();
    expect(fieldValue({ name: "t", kind: "list", item: "number", required: false, label: "t" }, "1\n\n2")).toEqual([
      1, 2,
    ]);
  });

  it("writes a field into the JSON text, and removes it when emptied, keeping the other properties", () => {
    const text = withField('{"a": 1, "b": "x"}', "b", "y");
    expect(JSON.parse(text)).toEqual({ a: 1, b: "y" });
    expect(JSON.parse(withField(text, "a", undefined))).toEqual({ b: "y" });
    expect(JSON.parse(withField("not json", "a", 1))).toEqual({ a: 1 });
  });
});
