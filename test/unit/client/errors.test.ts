/** The client's error classes: one per error type of the runtime's table, local errors apart. */
import { describe, expect, it } from "vitest";
import {
  AuthError,
  ClientTimeoutError,
  createClient,
  ExecutionError,
  InputValidationError,
  LocalError,
  RateLimitError,
  RegistryError,
  RequestError,
  RuntimeError,
  ToolRuntimeError,
} from "../../../client/index.ts";
import { ERROR_TABLE } from "../../../src/errors.ts";
import { envelope, scripted } from "./fake-runtime.ts";

const failWith = async (res: Response) =>
  createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch: scripted(res).fetch })
    .listTools()
    .catch((e: unknown) => e);

const classOfType = {
  auth_error: AuthError,
  request_error: RequestError,
  registry_error: RegistryError,
  execution_error: ExecutionError,
  runtime_error: RuntimeError,
} as const;

describe("the client's error classes", () => {
  it("gives every code of the runtime's error table the class of its type, keeping code, status and retryable", async () => {
    for (const [code, rule] of Object.entries(ERROR_TABLE)) {
      const err = await failWith(envelope(code, rule.type, rule.retryable, rule.status));
      expect(err, code).toBeInstanceOf(classOfType[rule.type]);
      expect(err, code).toBeInstanceOf(ToolRuntimeError);
      expect(err, code).not.toBeInstanceOf(LocalError);
      expect(err, code).toMatchObject({
        code,
        type: rule.type,
        status: rule.status,
        retryable: rule.retryable,
        local: false,
      });
    }
  });

  it("has classes of their own for a schema violation and a rate limit, under RequestError", async () => {
    const invalid = await failWith(
      envelope("invalid_input", "request_error", false, 400, {
        details: { violations: [{ path: "/a", message: "must be a number" }] },
      }),
    );
    expect(invalid).toBeInstanceOf(InputValidationError);
    expect(invalid).toBeInstanceOf(RequestError);
    expect(invalid).toMatchObject({ name: "InputValidationError", details: { violations: [{ path: "/a" }] } });
    const limited = await failWith(
      envelope("rate_limited", "request_error", true, 429, { details: { reason: "rate", retry_after_ms: 1500 } }),
    );
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ name: "RateLimitError", retryAfterMs: 1500, retryAfterSeconds: 2 });
  });

  it("takes Retry-After over details.retry_after_ms, in seconds or as a date", async () => {
    expect(
      await failWith(
        envelope("overloaded", "runtime_error", true, 503, {
          headers: { "retry-after": "3" },
          details: { retry_after_ms: 100 },
        }),
      ),
    ).toMatchObject({ retryAfterMs: 3000 });
    const at = new Date(Date.now() + 60_000).toUTCString();
    const dated = (await failWith(
      envelope("overloaded", "runtime_error", true, 503, { headers: { "retry-after": at } }),
    )) as ToolRuntimeError;
    expect(dated.retryAfterMs).toBeGreaterThan(50_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(await failWith(envelope("overloaded", "runtime_error", true, 503))).toMatchObject({
      retryAfterMs: undefined,
    });
  });

  it("keeps the execution's view on an execution error", async () => {
    const err = await failWith(
      envelope("tool_error", "execution_error", false, 422, { execution: { execution_id: "ex_1", status: "failed" } }),
    );
    expect(err).toBeInstanceOf(ExecutionError);
    expect(err).toMatchObject({ execution: { execution_id: "ex_1", status: "failed" } });
  });

  it("makes an error type it does not know a plain ToolRuntimeError, not a local one", async () => {
    const err = await failWith(envelope("quota_gone", "billing_error", false, 402));
    expect(err).toBeInstanceOf(ToolRuntimeError);
    expect(Object.values(classOfType).some((c) => err instanceof c)).toBe(false);
    expect(err).toMatchObject({ code: "quota_gone", type: "billing_error", status: 402, local: false });
  });

  it("keeps local failures in LocalError, with local codes, apart from every wire class", async () => {
    const html = await failWith(new Response("<html>502</html>", { status: 502 }));
    expect(html).toBeInstanceOf(LocalError);
    expect(html).toMatchObject({
      code: "bad_response",
      type: "local_error",
      status: 502,
      retryable: true,
      local: true,
    });
    expect(new ClientTimeoutError(10)).toMatchObject({
      name: "ClientTimeoutError",
      code: "client_timeout",
      status: 0,
      local: true,
      details: { timeout_ms: 10 },
    });
    expect(new ClientTimeoutError(10)).toBeInstanceOf(LocalError);
  });
});
