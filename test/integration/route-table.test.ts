/**
 * Every route the app answers is in the OpenAPI document, so the privilege matrix
 * (test/e2e/privilege-matrix.test.ts), which needs a row for every operation of the document,
 * cannot miss a route added to the app. The faces that are not REST are named here instead.
 */
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { openApiDocument } from "../../src/openapi/document.ts";

/** Routes outside the REST document: the console's redirect; Connect and MCP have their own descriptions and their own matrix cells. */
const NOT_REST = new Set(["GET /"]);

describe("the app's route table", () => {
  it("has every method and path in the OpenAPI document (a Hono :param is a {param} there)", () => {
    const documented = new Set(
      Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => m !== "parameters")
          .map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    const routes = app.routes
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/(.)\/$/, "$1")}`);
    expect(routes.length).toBeGreaterThan(30);
    expect([...new Set(routes)].filter((r) => !documented.has(r) && !NOT_REST.has(r)).sort()).toEqual([]);
  });
});
