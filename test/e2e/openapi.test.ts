import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/contract.ts";
import { ERROR_TABLE } from "../../src/errors.ts";
import { openApiDocument } from "../../src/openapi/document.ts";
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

  it("is the document the linter and the generated types were checked on (src/openapi/document.ts)", async () => {
    const served = await (await fetch(`${baseUrl}/v1/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it("names every error code (ERROR_CODES) in the error body, and each code some operation answers in that answer's description", async () => {
    const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as any;
    expect(doc.components.schemas.ErrorBody.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(Object.keys(ERROR_TABLE).sort()).toEqual([...ERROR_CODES].sort());
    // Every error response an operation lists, followed through its $ref: the codes it names, by status.
    const named = new Map<string, Set<number>>();
    for (const operations of Object.values(doc.paths) as Record<string, any>[]) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, any][]) {
          if (!(Number(status) >= 400)) continue;
          const resolved = response.$ref
            ? response.$ref
                .slice(2)
                .split("/")
                .reduce((o: any, k: string) => o[k], doc)
            : response;
          for (const [, code] of (resolved.description as string).matchAll(/`([a-z_]+)`/g))
            named.set(code, (named.get(code) ?? new Set()).add(Number(status)));
        }
      }
    }
    for (const code of ERROR_CODES) {
      if (!named.has(code)) continue;
      // Named under its own status only (src/errors.ts decides the status).
      expect({ code, statuses: [...named.get(code)!] }).toEqual({ code, statuses: [ERROR_TABLE[code].status] });
    }
    // 405 (method_not_allowed) is described once, in the document's description, since every path answers it; every other code is named by an operation.
    expect(ERROR_CODES.filter((c) => !named.has(c))).toEqual(["method_not_allowed"]);
  });
});
