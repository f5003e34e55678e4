/** The OpenAPI document declares `Retry-After` on every 429 and 503 answer, as the server sends it (src/retry-after.ts). */
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document.ts";

type Response = { $ref?: string; headers?: Record<string, unknown> };
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
  components: { responses: Record<string, Response>; schemas: Record<string, { required?: string[] }> };
}
// The document as served: JSON.
const doc: Document = JSON.parse(JSON.stringify(openApiDocument));
const resolve = (r: Response): Response => (r.$ref ? doc.components.responses[r.$ref.split("/").at(-1)!] : r);

describe("Retry-After in the OpenAPI document", () => {
  it("is declared on every 429 and 503 response of every operation", () => {
    const seen: string[] = [];
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          if (status !== "429" && status !== "503") continue;
          seen.push(`${method} ${path} ${status}`);
          if (!resolve(response).headers?.["Retry-After"]) missing.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining(["post /v1/executions 429", "post /v1/executions 503", "get /readyz 503"]),
    );
    expect(missing).toEqual([]);
  });

  it("does not require input in an execution request", () => {
    expect(doc.components.schemas.ExecutionRequest.required).toEqual(["tool"]);
  });
});
