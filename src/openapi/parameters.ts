/**
 * The path, query and header parameters operations share: an execution's id and the filters of
 * the execution and audit lists.
 */
import { EXECUTION_STATUSES } from "./schema-builders.ts";

export const path = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
export const query = (name: string, schema: object, description: string) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
export const executionId = path(
  "id",
  "An execution id (exec_…). Unknown, expired and other tenants' ids answer alike.",
);
export const listFilters = [
  query("tool", { type: "string" }, "Only this tool."),
  query("status", { type: "string", enum: EXECUTION_STATUSES }, "Only this status."),
  query("since", { type: "string", format: "date-time" }, "Accepted (index) or ended (audit) at or after."),
  query("until", { type: "string", format: "date-time" }, "… and before."),
  query("limit", { type: "integer", minimum: 1, maximum: 100, default: 50 }, "Page size."),
  query("cursor", { type: "string" }, "`next_cursor` of the previous page."),
];
