/**
 * The document's paths of the registry's view of tools.
 */
import { ref } from "./schema-builders.ts";
import { ok } from "./media.ts";
import { CALLER, errors } from "./error-responses.ts";
import { path } from "./parameters.ts";

export const toolPaths = {
  "/v1/tools": {
    get: {
      operationId: "listTools",
      tags: ["tools"],
      summary: "Every tool",
      responses: { "200": ok("the registry's view", ref("ToolList")), ...errors(CALLER) },
    },
  },
  "/v1/tools/{name}": {
    get: {
      operationId: "getTool",
      tags: ["tools"],
      summary: "One tool: versions, providers with trust and health, schemas",
      parameters: [path("name", "The tool's name.")],
      responses: { "200": ok("the tool", ref("ToolView")), ...errors([...CALLER, "tool_not_found"]) },
    },
  },
};
