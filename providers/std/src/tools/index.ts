/** Every tool the std provider serves, in the order its manifest lists them. */
import { demoCountdown } from "./demo-countdown.ts";
import { DEFAULT_EGRESS, type EgressPolicy } from "./egress-policy.ts";
import { httpRequestTool } from "./http-request.ts";
import { jsonQuery } from "./json-query.ts";
import { mathEvaluate } from "./math-evaluate.ts";
import { textStats } from "./text-stats.ts";

/** The tools with http.request under `egress`; the manifest is the same for any policy. */
export const stdToolsWith = (egress: EgressPolicy) => [
  mathEvaluate,
  textStats,
  jsonQuery,
  httpRequestTool(egress),
  demoCountdown,
];

/** As the schema build and the tests load them: the default egress policy. */
export const stdTools = stdToolsWith(DEFAULT_EGRESS);
