/**
 * Refusals on the MCP face: a call the runtime refused before it ran (no execution) is a
 * JSON-RPC error whose `data.error` is the error envelope (docs/contract.md#errors), unchanged. The JSON-RPC code
 * says what kind of refusal it is, from one table:
 *
 *   -32602 Invalid params   the params name something wrong: unknown tool or version
 *                           (MCP server/tools §Error Handling), input failing its schema
 *                           (`data.error.details.violations`), a bad `_meta` option, a version
 *                           past its sunset, an unknown or another tenant's task id
 *   -32603 Internal error   the runtime failed (`data.error.details.ref`), or a code this face
 *                           does not know
 *   -32000 - (status-400)   other 4xx refusals, by the error table's HTTP status:
 *                           -32003 forbidden, -32009 idempotency_conflict, -32013 payload_too_large,
 *                           -32029 rate_limited (`details.retry_after_ms`)
 *   -32050 - (status-500)   other 5xx refusals: -32053 no_healthy_provider, sandbox_unavailable
 *
 * Codes come from the error table's status, like the Connect face's, so a new error code
 * needs no edit here. They avoid the codes MCP assigns (-32020 to -32022, -32042, -32002).
 */
import { ProtocolError } from "@modelcontextprotocol/server";
import type { ErrorBody } from "../contract.ts";
import { statusOf } from "../errors.ts";

const INVALID_PARAMS = new Set([
  "invalid_input",
  "invalid_request",
  "tool_not_found",
  "tool_deprecated",
  "execution_not_found",
]);
/** Codes MCP gives a meaning of its own; a status that would land on one answers -32000 instead. */
const MCP_ASSIGNED = new Set([-32001, -32002, -32020, -32021, -32022, -32042]);

/** The JSON-RPC error code of an error code (docs/contract.md#errors). */
export function jsonRpcCodeOf(code: string): number {
  if (INVALID_PARAMS.has(code)) return -32602;
  const status = statusOf(code); // a code this table does not know (a newer runtime's) is a 500
  if (status === 500 || status < 400 || status >= 600) return -32603;
  const derived = status >= 500 ? -32050 - (status - 500) : -32000 - (status - 400);
  return MCP_ASSIGNED.has(derived) ? -32000 : derived;
}

/** A refusal as the error the SDK sends: its code, its message, the envelope in `data`. */
export function refusalError(error: ErrorBody): ProtocolError {
  return new ProtocolError(jsonRpcCodeOf(error.code), error.message, { error });
}
