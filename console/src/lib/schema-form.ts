/**
 * From a tool's input JSON Schema to a form: one field per top-level property, for the
 * shapes a form shows well (strings, enums, numbers, integers, booleans, lists of strings or
 * numbers). Anything else — nested objects, `$ref`, `oneOf`… — makes the whole schema
 * "unrenderable", and the page falls back to the JSON editor, saying which field and why.
 * The JSON text stays the one source of truth; fields read from it and write into it.
 */
export type FieldKind = "text" | "select" | "number" | "integer" | "boolean" | "list";

export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  label: string;
  help?: string;
  options?: (string | number)[];
  min?: number;
  max?: number;
  /** For lists: the item kind. */
  item?: "string" | "number" | "integer";
  default?: unknown;
}

export type FormModel = { ok: true; fields: Field[] } | { ok: false; reason: string };

type Schema = Record<string, any>;

const COMBINATORS = ["$ref", "oneOf", "anyOf", "allOf", "not", "if", "patternProperties"];

export function formFor(schema: unknown): FormModel {
  if (!isObject(schema)) return { ok: false, reason: "the tool has no input schema" };
  const s = schema as Schema;
  if (s.type !== "object" || !isObject(s.properties))
    return { ok: false, reason: "the input is not an object with listed properties" };
  for (const c of COMBINATORS) if (c in s) return { ok: false, reason: `the schema uses ${c}` };
  const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
  const fields: Field[] = [];
  for (const [name, prop] of Object.entries<Schema>(s.properties)) {
    const field = fieldFor(name, prop, required.has(name));
    if (typeof field === "string") return { ok: false, reason: `field "${name}" ${field}` };
    fields.push(field);
  }
  return { ok: true, fields };
}

function fieldFor(name: string, p: Schema, required: boolean): Field | string {
  if (!isObject(p)) return "has no schema";
  for (const c of COMBINATORS) if (c in p) return `uses ${c}`;
  const base = { name, required, label: p.title ?? name, help: p.description, default: p.default };
  if (Array.isArray(p.enum) && p.enum.every((v: unknown) => typeof v === "string" || typeof v === "number"))
    return { ...base, kind: "select", options: p.enum };
  const type: string[] =
    p.type === undefined ? [] : Array.isArray(p.type) ? p.type.filter((t: string) => t !== "null") : [p.type];
  if (type.length !== 1) return type.length === 0 ? "has no type" : `may be any of ${type.join(", ")}`;
  switch (type[0]) {
    case "string":
      return { ...base, kind: "text" };
    case "number":
    case "integer":
      return { ...base, kind: type[0], min: p.minimum, max: p.maximum };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "array": {
      const item = p.items?.type;
      if (item === "string" || item === "number" || item === "integer") return { ...base, kind: "list", item };
      return "is a list of something other than strings or numbers";
    }
    default:
      return `is of type ${String(type[0])}`;
  }
}

/** The text a field shows for the current input value. */
export function fieldText(field: Field, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (field.kind === "list") return Array.isArray(value) ? value.join("\n") : "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * The value a field's text stands for; `undefined` removes the property (an empty optional
 * field), `{invalid}` keeps the previous value and says why.
 */
export function fieldValue(field: Field, text: string, checked?: boolean): unknown | { invalid: string } {
  if (field.kind === "boolean") return checked;
  if (text.trim() === "") return undefined;
  if (
    field.kind === "number" ||
    field.kind === "integer" ||
    (field.kind === "select" && typeof field.options?.[0] === "number")
  ) {
    const n = Number(text);
    if (!Number.isFinite(n) || (field.kind === "integer" && !Number.isInteger(n)))
      return { invalid: `${field.label} must be ${field.kind === "integer" ? "a whole number" : "a number"}` };
    return n;
  }
  if (field.kind === "list") {
    const items = text
      .split("\n")
      .map((x) => x.trim())
      .filter((x) => x !== "");
    if (field.item === "string") return items;
    const nums = items.map(Number);
    if (nums.some((n) => !Number.isFinite(n))) return { invalid: `${field.label}: every line must be a number` };
    return nums;
  }
  return text;
}

export function isInvalid(v: unknown): v is { invalid: string } {
  return (
    isObject(v) && typeof (v as { invalid?: unknown }).invalid === "string" && Object.keys(v as object).length === 1
  );
}

/** The input object with one property set (or removed), as the JSON editor's text. */
export function withField(jsonText: string, name: string, value: unknown): string {
  let current: unknown;
  try {
    current = JSON.parse(jsonText || "{}");
  } catch {
    current = {};
  }
  const next: Record<string, unknown> = isObject(current) ? { ...(current as Record<string, unknown>) } : {};
  if (value === undefined) delete next[name];
  else next[name] = value;
  return JSON.stringify(next, null, 2);
}

function isObject(v: unknown): boolean {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
