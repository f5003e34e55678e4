/**
 * Every endpoint that takes a body reads it the same way (docs/contract.md#formats: JSON or MessagePack):
 * curl's default `application/x-www-form-urlencoded` is refused with 415 everywhere, not read
 * by some endpoints and refused by others. The list of endpoints is the OpenAPI document's, so
 * an endpoint added later is covered without touching this file.
 *
 * And a deprecation's `replacement` must name a tool the registry has (and the version, when
 * given): callers are sent there by `Link: rel="successor-version"` and by `tool_deprecated`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document.ts";
import { ADMIN_KEY, asAdmin, baseUrl, bearer, call, DEV_KEY, execute } from "./http.ts";

const paths = openApiDocument.paths as unknown as Record<
  string,
  Record<string, { operationId: string; requestBody?: unknown }>
>;
const bodyTaking = Object.entries(paths).flatMap(([path, ops]) =>
  Object.entries(ops)
    .filter(([, op]) => op && typeof op === "object" && op.requestBody)
    .map(([method, op]) => ({ method: method.toUpperCase(), path, operationId: op.operationId })),
);

let executionId: string;

beforeAll(async () => {
  // A running execution for the cancel endpoint: it must still be running when the form body arrives.
  const started = await execute({ tool: "demo.countdown", mode: "async", input: { from: 60, interval_ms: 1000 } });
  expect(started.status).toBe(202);
  executionId = started.body.execution_id;
});

afterAll(async () => {
  await call("POST", `/v1/executions/${executionId}/cancel`, { grace_ms: 0 });
});

/** A concrete URL for a templated path: a real execution, provider and tool version. */
function concrete(path: string): string {
  return path
    .replace("{id}", executionId)
    .replace("/providers/{name}", "/providers/lab")
    .replace("/tools/{name}/versions/{version}", "/tools/lab.echo/versions/1.0.0");
}

describe("request bodies", () => {
  it("the document lists the body-taking endpoints this checks", () => {
    expect(bodyTaking.map((e) => e.operationId)).toEqual(
      expect.arrayContaining([
        "createExecution",
        "cancelExecution",
        "updateProvider",
        "deprecateToolVersion",
        "createApiKey",
      ]),
    );
  });

  it.each(bodyTaking)(
    "$method $path ($operationId) refuses a form body with 415, before doing anything",
    async ({ method, path }) => {
      // An operator's key where a plain agent's would be refused first (admin routes, a tenant's bundles).
      const key = path.startsWith("/v1/admin/") || path.startsWith("/v1/bundles") ? ADMIN_KEY : DEV_KEY;
      // What `curl -d '{"grace_ms": 2000}'` sends without a content-type header.
      const res = await fetch(`${baseUrl}${concrete(path)}`, {
        method,
        headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
        body: '{"grace_ms": 2000}',
      });
      expect(res.status).toBe(415);
      expect(((await res.json()) as any).error).toMatchObject({
        code: "unsupported_media_type",
        type: "request_error",
        retryable: false,
      });
      // Nothing happened: the execution is still running.
      expect((await call("GET", `/v1/executions/${executionId}`)).body.status).toBe("running");
    },
  );
});

describe("a deprecation's replacement", () => {
  const put = (replacement: unknown) =>
    asAdmin("PUT", "/v1/admin/tools/lab.echo/versions/1.0.0/deprecation", {
      sunset: "2099-01-01T00:00:00Z",
      replacement,
    });
  // Tests run in any order: each starts with lab.echo not deprecated.
  beforeEach(() => asAdmin("DELETE", "/v1/admin/tools/lab.echo/versions/1.0.0/deprecation"));
  afterAll(() => asAdmin("DELETE", "/v1/admin/tools/lab.echo/versions/1.0.0/deprecation"));

  it.each([
    ["a tool the registry does not have", "x.y", {}],
    ["a version the tool does not have", "lab.route@9.9.9", { available_versions: ["1.0.0"] }],
    ["the deprecated version itself", "lab.echo@1.0.0", {}],
    ["an empty name", "@1.0.0", {}],
  ])(
    "is refused when it names %s (400 invalid_request), and nothing is deprecated",
    async (_what, replacement, details) => {
      const res = await put(replacement);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: "invalid_request",
        details: { field: "replacement", replacement, ...details },
      });
      const tool = (await call("GET", "/v1/tools/lab.echo")).body;
      expect(tool.versions.find((v: { version: string }) => v.version === "1.0.0").deprecation).toBeNull();
    },
  );

  it("is accepted when it names a tool, or a tool and a version, the registry has; calls then link to it", async () => {
    try {
      expect((await put("lab.route")).status).toBe(200);
      const res = await put("lab.route@1.0.0");
      expect(res.status).toBe(200);
      expect(res.body.deprecation).toMatchObject({ replacement: "lab.route@1.0.0" });
      const called = await execute({ tool: "lab.echo", input: { a: 1 }, limits: { timeout_ms: 5000 } });
      expect(called.headers.get("link")).toBe('</v1/tools/lab.route>; rel="successor-version"');
    } finally {
      // Lifted here, not only after the file: tests run in any order (TEST_SEED), and the
      // refusals above check that nothing is deprecated.
      await asAdmin("DELETE", "/v1/admin/tools/lab.echo/versions/1.0.0/deprecation");
    }
  });
});
