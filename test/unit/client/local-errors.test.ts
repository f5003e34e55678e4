/** The typed client's local errors: nothing is sent for a key HTTP cannot carry; faults are named. */
import { describe, expect, it } from "vitest";
import { createClient, LocalError, RateLimitError, ToolRuntimeError } from "../../../client/index.ts";

const never: typeof fetch = async () => {
  throw new Error("fetch must not be called");
};

describe("the client's local errors", () => {
  it("refuses a key with a non-ASCII character before sending, naming the character and its position", () => {
    const err = (() => {
      try {
        createClient({ baseUrl: "http://x.invalid", apiKey: "trt_…", fetch: never });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ToolRuntimeError);
    expect(err).toMatchObject({ code: "invalid_argument", status: 0, local: true, details: { position: 5 } });
    expect((err as Error).message).toContain('"…" at position 5');
    expect((err as Error).message).toContain("placeholder");
  });

  it("refuses an empty key and a key with a control character", () => {
    expect(() => createClient({ baseUrl: "http://x.invalid", apiKey: " ", fetch: never })).toThrow(/no API key/);
    expect(() => createClient({ baseUrl: "http://x.invalid", apiKey: "trt_a\nb", fetch: never })).toThrow(
      /control character \(U\+000A\)/,
    );
  });

  it("reports a refused connection as network_error with its cause", async () => {
    const refused: typeof fetch = async () => {
      throw Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    };
    const err = await createClient({ baseUrl: "http://127.0.0.1:9/", apiKey: "trt_x", fetch: refused })
      .listTools()
      .catch((e) => e);
    expect(err).toMatchObject({ code: "network_error", retryable: true, status: 0 });
    expect(err.message).toBe("could not reach the runtime at http://127.0.0.1:9 (ECONNREFUSED)");
  });

  it("reports an answer that is not the API's JSON as bad_response, not as a crash", async () => {
    const html: typeof fetch = async () =>
      new Response("<html>502 Bad Gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
    const err = await createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch: html })
      .getTool("a")
      .catch((e) => e);
    expect(err).toMatchObject({ code: "bad_response", status: 502, retryable: true, local: true });
    expect(err).toBeInstanceOf(LocalError);
  });

  it("keeps the error envelope's type and Retry-After on a refusal", async () => {
    const limited: typeof fetch = async () =>
      new Response(
        JSON.stringify({
          error: {
            code: "rate_limited",
            message: "slow down",
            type: "request_error",
            retryable: true,
            details: { reason: "rate" },
          },
        }),
        { status: 429, headers: { "retry-after": "3" } },
      );
    const err = await createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch: limited })
      .invoke("a", {})
      .catch((e) => e);
    expect(err).toMatchObject({
      code: "rate_limited",
      type: "request_error",
      status: 429,
      retryAfterMs: 3000,
      retryAfterSeconds: 3,
      details: { reason: "rate" },
      local: false,
    });
    expect(err).toBeInstanceOf(RateLimitError);
  });
});
