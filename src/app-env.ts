import type { Caller } from "./contract.ts";
import type { Format } from "./codec/negotiate.ts";

/** Hono's view of the app: bindings, and the caller the auth middleware established. */
export type AppEnv = { Bindings: Env; Variables: { caller: Caller; format: Format } };
