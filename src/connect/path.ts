/**
 * Where the Connect and gRPC-Web face answers: `/<service type name>/<method>`. Written out
 * rather than read from the generated descriptor, so that routing a request does not load
 * protobuf (docs/architecture.md#start-up-and-size); a unit test holds it equal to
 * `ToolRuntimeService.typeName`.
 */
export const CONNECT_PATH_PREFIX = "/tool_runtime.v1.ToolRuntimeService/";
