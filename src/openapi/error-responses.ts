/**
 * An operation's error responses, derived from the error table (src/errors.ts): each
 * operation names the codes it can answer; their statuses, the `Error<status>` response
 * components and their descriptions follow, so a new code or status needs no edit here.
 * `errorResponses()` lists the statuses the operations used: call it once every path is built.
 */
import { ERROR_TABLE, type ErrorCode } from "../errors.ts";
import { RETRY_AFTER_STATUSES } from "../retry-after.ts";
import { ref } from "./schema-builders.ts";
import { body, header } from "./operation-parts.ts";

const statusOf = (code: ErrorCode) => ERROR_TABLE[code].status;
const codesByStatus = new Map<number, ErrorCode[]>();
for (const code of Object.keys(ERROR_TABLE) as ErrorCode[])
  codesByStatus.set(statusOf(code), [...(codesByStatus.get(statusOf(code)) ?? []), code]);

/** Every 429 and 503 says when (src/retry-after.ts): `Retry-After`, and `details.retry_after_ms` when there is an error. */
const retryAfter = (status: number) =>
  RETRY_AFTER_STATUSES.has(status) ? { headers: { "Retry-After": header("RetryAfter") } } : {};
const describeStatus = (status: number) =>
  codesByStatus
    .get(status)!
    .map((c) => `\`${c}\`: ${ERROR_TABLE[c].meaning}`)
    .join("; ");

/** Every route may answer these: an unanswerable Accept, and a runtime fault. */
export const ALWAYS: ErrorCode[] = ["not_acceptable", "internal"];
/** Every authenticated request counts against its tenant's rate (src/policy/request-rate.ts). */
export const CALLER: ErrorCode[] = [...ALWAYS, "unauthenticated", "rate_limited"];
export const OPERATOR: ErrorCode[] = [...CALLER, "forbidden"];

const usedErrorStatuses = new Set<number>();
/** The error responses of an operation that can answer `codes`: `Error<status>` for each status. */
export function errors(codes: ErrorCode[]): Record<string, object> {
  return Object.fromEntries(
    codes.map((c) => {
      usedErrorStatuses.add(statusOf(c));
      return [String(statusOf(c)), { $ref: `#/components/responses/Error${statusOf(c)}` }];
    }),
  );
}
/** One component per status some operation answers (an unreferenced component is noise). */
export const errorResponses = () =>
  Object.fromEntries(
    [...usedErrorStatuses]
      .sort()
      .map((status) => [
        `Error${status}`,
        { description: describeStatus(status), ...retryAfter(status), content: body(ref("ErrorEnvelope")) },
      ]),
  );

/**
 * A sync execution that ran and failed answers with its error's status and the execution
 * view plus `error` (README "Every error is one envelope"); refusals before it ran are the
 * plain envelope. Both carry `error.code`.
 */
const ENDS_AN_EXECUTION = new Set(
  (Object.keys(ERROR_TABLE) as ErrorCode[])
    .filter((c) => ERROR_TABLE[c].type === "execution_error" || c === "internal")
    .map(statusOf),
);
export function executionErrors(codes: ErrorCode[]): Record<string, object> {
  const out = errors(codes.filter((c) => !ENDS_AN_EXECUTION.has(statusOf(c))));
  for (const status of ENDS_AN_EXECUTION) {
    out[String(status)] = {
      description: `${describeStatus(status)}. A sync execution that ran answers with the execution and its error.`,
      ...retryAfter(status),
      content: body({ oneOf: [ref("ErrorEnvelope"), ref("FailedExecution")] }),
    };
  }
  return out;
}
