/**
 * The API's request and response shapes (docs/contract.md), defined once and shared by the Worker, the execution
 * object, the faces and the tests, so none of them can drift. The bottom of the house: it depends on
 * nothing but the provider wire protocol's types, which depend on nothing either. This file is the one import
 * point; the shapes live in src/contract/, one group a file.
 */
export type { Value } from "../providers/sdk/protocol.ts";
export * from "./contract/errors.ts";
export * from "./contract/request.ts";
export * from "./contract/execution-view.ts";
export * from "./contract/approvals.ts";
export * from "./contract/outcome.ts";
export * from "./contract/tools.ts";
export * from "./contract/records.ts";
export * from "./contract/usage.ts";
