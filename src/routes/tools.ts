/** The registry view (docs/contract.md#routes): the REST face of src/registry/tool-views.ts. */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { reply } from "../codec/negotiate.ts";
import { toolDetail, toolList } from "../execution/tool-listing.ts";
import { refusalResponse } from "./refusal.ts";

export const tools = new Hono<AppEnv>();

tools.get("/", async (c) => {
  const list = await toolList(c.env, c.get("caller"), (p) => c.executionCtx.waitUntil(p));
  return list.ok ? reply(c, list.value) : refusalResponse(c, list.error);
});

tools.get("/:name", async (c) => {
  const detail = await toolDetail(c.env, c.get("caller"), c.req.param("name"), (p) => c.executionCtx.waitUntil(p));
  return detail.ok ? reply(c, detail.value) : refusalResponse(c, detail.error);
});
