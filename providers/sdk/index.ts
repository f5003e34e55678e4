export {
  defineTool,
  sleep,
  ToolError,
  type ToolContext,
  type ToolDefinition,
  type ToolErrorOptions,
  type ToolSpec,
} from "./define.ts";
export { createProvider, SDK_VERSION } from "./provider.ts";
export type * from "./protocol.ts";
