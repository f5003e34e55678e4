import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { allowedMethods } from "../../../src/routes/allowed-methods.ts";

/** A small app shaped like the runtime's: middleware, a catch-all face, mounted sub-apps with parameters. */
function app() {
  const sub = new Hono();
  sub.post("/", (c) => c.text(""));
  sub.get("/", (c) => c.text(""));
  sub.get("/:id", (c) => c.text(""));
  sub.post("/:id/cancel", (c) => c.text(""));
  const admin = new Hono();
  admin.use("*", async (_c, next) => next());
  admin.patch("/providers/:name", (c) => c.text(""));
  admin.delete("/providers/:name/health", (c) => c.text(""));
  const root = new Hono();
  root.use("*", async (_c, next) => next());
  root.all("/tool_runtime.v1.ToolRuntimeService/*", (c) => c.text(""));
  root.get("/healthz", (c) => c.text(""));
  root.route("/v1/executions", sub);
  root.route("/v1/admin", admin);
  return root;
}

describe("allowedMethods", () => {
  const routes = app().routes;

  it("lists the methods of a known path, with HEAD beside GET", () => {
    expect(allowedMethods(routes, "/v1/executions")).toEqual(["GET", "HEAD", "POST"]);
    expect(allowedMethods(routes, "/healthz")).toEqual(["GET", "HEAD"]);
  });

  it("matches parameters one segment at a time", () => {
    expect(allowedMethods(routes, "/v1/executions/exec_1")).toEqual(["GET", "HEAD"]);
    expect(allowedMethods(routes, "/v1/executions/exec_1/cancel")).toEqual(["POST"]);
    expect(allowedMethods(routes, "/v1/admin/providers/lab")).toEqual(["PATCH"]);
    expect(allowedMethods(routes, "/v1/admin/providers/lab/health")).toEqual(["DELETE"]);
    expect(allowedMethods(routes, "/v1/executions/a/b")).toEqual([]);
  });

  it("knows nothing of paths only middleware or a catch-all covers", () => {
    expect(allowedMethods(routes, "/v1/admin")).toEqual([]);
    expect(allowedMethods(routes, "/v1/nothing")).toEqual([]);
    expect(allowedMethods(routes, "/tool_runtime.v1.ToolRuntimeService/Invoke")).toEqual([]);
  });

  it("takes a dot in a path literally", () => {
    const root = new Hono();
    root.get("/v1/openapi.json", (c) => c.text(""));
    expect(allowedMethods(root.routes, "/v1/openapi.json")).toEqual(["GET", "HEAD"]);
    expect(allowedMethods(root.routes, "/v1/openapiXjson")).toEqual([]);
  });
});
