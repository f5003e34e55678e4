/**
 * `GET /v1/audit` (operators): the audit log (AIOS §5.7), every tenant's, filtered like the
 * index; `GET /v1/audit/refusals`: rate-limit refusal counts by tenant, tool and reason.
 */
import { reply } from "../codec/negotiate.ts";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { listAudit, parseFilters } from "../audit/queries.ts";
import { listRefusals } from "../audit/refusal-counts.ts";
import { auditDb, operatorsOnly } from "./admin.ts";

export const audit = new Hono<AppEnv>();

audit.use("*", operatorsOnly);

audit.get("/", async (c) => {
  const filters = parseFilters((name) => c.req.query(name));
  return reply(c, await listAudit(auditDb(c.env), { ...filters, tenant: c.req.query("tenant") }));
});

audit.get("/refusals", async (c) => reply(c, await listRefusals(auditDb(c.env), { tenant: c.req.query("tenant"), tool: c.req.query("tool") })));
