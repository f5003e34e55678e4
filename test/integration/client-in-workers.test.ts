/**
 * The built client (client/dist/, `npm run build:client`) runs in a Worker as it is shipped:
 * workerd loads the plain ESM file and calls the runtime through it. (The same file on Node 20:
 * test/e2e/client-package.test.ts; in Chromium: test/e2e/client-browser.test.ts.)
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
// The file a package user imports (package.json exports "./client"), not the TypeScript source.
import { createClient, ToolRuntimeError } from "../../client/dist/index.js";

const viaRuntime: typeof fetch = (input, init) => exports.default.fetch(new Request(input as RequestInfo, init));

describe("the built client in workerd", () => {
  it("calls the runtime and reads the result", async () => {
    const runtime = createClient({ baseUrl: "http://localhost", apiKey: env.DEV_API_KEY, fetch: viaRuntime });
    const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" }, { limits: { timeout_ms: 20_000 } });
    expect(view).toMatchObject({ status: "succeeded", output: { value: 42 } });
  });

  it("refuses a placeholder key before sending anything, naming the character", () => {
    const never: typeof fetch = () => Promise.reject(new Error("nothing may be sent"));
    const err = (() => {
      try {
        createClient({ baseUrl: "http://localhost", apiKey: "trt_…", fetch: never });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ToolRuntimeError);
    expect(err).toMatchObject({ code: "invalid_argument", status: 0 });
  });
});
