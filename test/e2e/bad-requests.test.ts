import { describe, expect, it } from "vitest";
import { baseUrl, call, execute } from "./http.ts";

function expectEnvelope(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({
    code,
    message: expect.any(String),
    type: expect.any(String),
    retryable: expect.any(Boolean),
  });
}

describe("bad requests get the error envelope, never a 500", () => {
  it("refuses malformed JSON", async () => {
    expectEnvelope(await execute('{"tool": "math.evaluate", '), 400, "invalid_request");
  });

  it("refuses a body that is not an object", async () => {
    expectEnvelope(await execute("[1,2]"), 400, "invalid_request");
  });

  it("refuses a missing tool", async () => {
    const res = await execute({ input: {} });
    expectEnvelope(res, 400, "invalid_request");
    expect(res.body.error.details).toEqual({ field: "tool" });
  });

  it("refuses unknown envelope fields", async () => {
    const res = await execute({ tool: "math.evaluate", input: { expression: "1" }, priority: "high" });
    expectEnvelope(res, 400, "invalid_request");
    expect(res.body.error.details).toEqual({ field: "priority" });
  });

  it("refuses a wrongly typed limit", async () => {
    expectEnvelope(
      await execute({ tool: "math.evaluate", input: { expression: "1" }, limits: { timeout_ms: "soon" } }),
      400,
      "invalid_request",
    );
  });

  it("refuses a content type other than JSON or MessagePack with 415", async () => {
    expectEnvelope(
      await call("POST", "/v1/executions", "tool=math.evaluate", {
        "content-type": "application/x-www-form-urlencoded",
      }),
      415,
      "unsupported_media_type",
    );
  });

  it("refuses an Accept it cannot answer with 406", async () => {
    expectEnvelope(
      await call(
        "POST",
        "/v1/executions",
        { tool: "math.evaluate", input: { expression: "1" } },
        { accept: "text/html" },
      ),
      406,
      "not_acceptable",
    );
  });

  it("refuses a body over the limit by its Content-Length (413)", async () => {
    const res = await execute({ tool: "lab.echo", input: { blob: "x".repeat(1_100_000) } });
    expectEnvelope(res, 413, "payload_too_large");
    expect(res.body.error.details).toMatchObject({ max_bytes: 1_048_576 });
  });

  it("answers tool_not_found for an unknown name", async () => {
    const res = await execute({ tool: "no.such.tool", input: {} });
    expectEnvelope(res, 404, "tool_not_found");
  });

  it("answers tool_not_found for an unknown version, naming the versions that exist", async () => {
    const res = await execute({ tool: "math.evaluate", version: "9.9.9", input: { expression: "1" } });
    expectEnvelope(res, 404, "tool_not_found");
    expect(res.body.error.details.available_versions).toEqual(["1.0.0"]);
  });

  it("answers tool_not_found for a provider that does not offer the tool, without falling back", async () => {
    const res = await execute({ tool: "math.evaluate", provider: "community", input: { expression: "1" } });
    expectEnvelope(res, 404, "tool_not_found");
  });

  it("answers execution_not_found for unknown and malformed ids alike", async () => {
    expectEnvelope(await call("GET", `/v1/executions/exec_${"a".repeat(64)}`), 404, "execution_not_found");
    expectEnvelope(await call("GET", "/v1/executions/exec_nope"), 404, "execution_not_found");
  });

  it("answers an unknown route with not_found", async () => {
    expectEnvelope(await call("GET", "/v2/executions"), 404, "not_found");
  });
});
