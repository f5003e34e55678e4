/** Worker entry: wiring only. */
import { app } from "./app.ts";

export { ExecutionObject } from "../durable-objects/execution-object.ts";
export { RegistryObject } from "../durable-objects/registry-object.ts";
export { TenantObject } from "../durable-objects/tenant-object.ts";

export default app;
