import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_TABLE } from "../../src/errors.ts";
import { openApiDocument } from "../../src/openapi.ts";
import { baseUrl } from "./http.ts";

describe("the OpenAPI document", () => {
  it("is served at /v1/openapi.json without a credential and passes a real OpenAPI 3.1 validator", async () => {
    const res = await fetch(`${baseUrl}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(validator.version).toBe("3.1");
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("is the document the linter and the generated types were checked on (src/openapi.ts)", async () => {
    const served = await (await fetch(`${baseUrl}/v1/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it("names every error code of the error table, and each status with its codes", async () => {
    const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as any;
    expect(doc.components.schemas.ErrorBody.properties.code.enum).toEqual(Object.keys(ERROR_TABLE));
    expect(doc.components.responses.Error429.description).toContain("`rate_limited`");
    expect(doc.components.responses.Error404.description).toMatch(/`tool_not_found`.*`execution_not_found`.*`not_found`/);
  });

});
