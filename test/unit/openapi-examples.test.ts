/**
 * Every operation of the OpenAPI document carries an example of its request body and of its
 * first success answer (the `examples-*.ts` files of src/openapi/), and every example is valid
 * against the schema of the media type it sits on, judged by ajv's JSON Schema 2020-12
 * (OpenAPI 3.1's).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document.ts";

type Media = { schema?: object; example?: unknown; examples?: Record<string, { value: unknown }> };
type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

const doc = structuredClone(openApiDocument) as unknown as { paths: Record<string, Record<string, Operation>> };
const METHODS = ["get", "put", "post", "patch", "delete"];
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => m in item).map((m) => ({ where: `${m.toUpperCase()} ${path}`, op: item[m] })),
);

// Formats checked as the API writes them (ajv's format plugin is not a dependency of the project).
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat(
  "date-time",
  (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)),
);
ajv.addFormat("uri", (s: string) => URL.canParse(s));
ajv.addSchema(structuredClone(openApiDocument), "openapi.json");

/** The media type that shows the example: the JSON one, or the only one. */
const shown = (content: Record<string, Media>) => content["application/json"] ?? Object.values(content)[0];
const valuesOf = (m: Media) =>
  m.examples
    ? Object.entries(m.examples).map(([name, e]) => [name, e.value] as const)
    : [["example", m.example] as const];
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

function problems(at: string, media: Media): string[] {
  const validate = ajv.getSchema(`openapi.json#/${at}/schema`);
  if (!validate) return [`${at}: no schema`];
  return valuesOf(media).flatMap(([name, value]) =>
    validate(value) ? [] : [`${at} (${name}): ${ajv.errorsText(validate.errors, { separator: "; " })}`],
  );
}

describe("the OpenAPI document's examples", () => {
  it("has 40 or more operations to look at", () => {
    expect(operations.length).toBeGreaterThanOrEqual(40);
  });

  it("gives every request body an example, valid against its schema", () => {
    const found: string[] = [];
    for (const { where, op } of operations) {
      if (!op.requestBody) continue;
      const media = shown(op.requestBody.content);
      if (media.example === undefined && media.examples === undefined) {
        found.push(`${where}: request body without an example`);
        continue;
      }
      const [method, path] = where.split(" ");
      const type =
        "application/json" in op.requestBody.content ? "application/json" : Object.keys(op.requestBody.content)[0];
      found.push(...problems(pointer("paths", path, method.toLowerCase(), "requestBody", "content", type), media));
    }
    expect(found).toEqual([]);
  });

  it("gives every operation's first success answer an example, valid against its schema", () => {
    const found: string[] = [];
    for (const { where, op } of operations) {
      const status = Object.keys(op.responses)
        .filter((s) => /^2\d\d$/.test(s) && op.responses[s].content)
        .sort()[0];
      if (!status) continue;
      const content = op.responses[status].content!;
      const media = shown(content);
      if (media.example === undefined && media.examples === undefined) {
        found.push(`${where} ${status}: answer without an example`);
        continue;
      }
      const [method, path] = where.split(" ");
      const type = "application/json" in content ? "application/json" : Object.keys(content)[0];
      found.push(
        ...problems(pointer("paths", path, method.toLowerCase(), "responses", status, "content", type), media),
      );
    }
    expect(found).toEqual([]);
  });

  it("is caught when an example breaks its schema", () => {
    // The check can fail: an example with a status the schema does not allow.
    const broken = structuredClone(openApiDocument) as unknown as { paths: Record<string, Record<string, Operation>> };
    const media = broken.paths["/v1/executions/{id}"].get.responses["200"].content!["application/json"];
    const strict = new Ajv2020({ strict: false, validateFormats: false });
    strict.addSchema(broken, "broken.json");
    const validate = strict.getSchema(
      `broken.json#/${pointer("paths", "/v1/executions/{id}", "get", "responses", "200", "content", "application/json")}/schema`,
    )!;
    expect(validate(media.example)).toBe(true);
    expect(validate({ ...(media.example as object), status: "paused" })).toBe(false);
  });
});
