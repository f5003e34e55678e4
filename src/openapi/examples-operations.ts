/**
 * Examples of the operational routes (src/openapi/paths-operations.ts).
 */
import { type OperationExamples, v } from "./examples-shared.ts";

const protectedResource = {
  resource: "https://tools.example.com/mcp",
  authorization_servers: ["https://auth.example.com"],
  bearer_methods_supported: ["header"],
  resource_name: "Tool Runtime",
};

export const operationExamples: Record<string, OperationExamples> = {
  getOpenApiDocument: {
    responses: {
      "200": v({
        openapi: "3.1.0",
        info: { title: "Tool Runtime", version: "1.0.0" },
        paths: { "/v1/tools": { get: { operationId: "listTools" } } },
      }),
    },
  },
  getProtectedResourceMetadata: { responses: { "200": v(protectedResource) } },
  getMcpProtectedResourceMetadata: { responses: { "200": v(protectedResource) } },
  getHealth: { responses: { "200": v({ status: "ok" }) } },
  getReadiness: { responses: { "200": v({ status: "ready" }) } },
  getMetrics: {
    responses: {
      "200": v(
        '# HELP tool_runtime_executions_total Executions that ended, by tool and status.\n# TYPE tool_runtime_executions_total counter\ntool_runtime_executions_total{tool="math.evaluate",status="succeeded"} 118\n',
      ),
    },
  },
};
