/** Every tool the std provider serves, in the order its manifest lists them. */
import { demoCountdown } from "./demo-countdown.ts";
import { httpRequest } from "./http-request.ts";
import { jsonQuery } from "./json-query.ts";
import { mathEvaluate } from "./math-evaluate.ts";
import { textStats } from "./text-stats.ts";

export const stdTools = [mathEvaluate, textStats, jsonQuery, httpRequest, demoCountdown];
