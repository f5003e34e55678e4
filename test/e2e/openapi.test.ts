import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
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

  it("names every error code the runtime can answer", async () => {
    const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as any;
    expect(doc.components.schemas.ErrorBody.properties.code.enum).toEqual(expect.arrayContaining(["invalid_input", "tool_not_found", "rate_limited", "idempotency_conflict", "no_healthy_provider"]));
  });
});
