/**
 * Execution ids (DESIGN.md 7). Every id is unguessable and says where its record lives:
 *   exec_<64 hex>            an ExecutionObject's id (async, streamed and keyed calls)
 *   exec_e<12 hex><32 hex>   a fast-path call that ran at the edge: when it was accepted, then
 *                            128 random bits; its finished record lives in the audit store
 */
const PREFIX = "exec_";
const OBJECT_ID = /^exec_([0-9a-f]{64})$/;
const EDGE_ID = /^exec_e([0-9a-f]{12})[0-9a-f]{32}$/;

/** A typed stub of the ExecutionObject class, as the generated `Env` binds it. */
export type ExecutionStub = ReturnType<Env["EXECUTIONS"]["get"]>;

export type ExecutionLocation =
  | { kind: "object"; stub: ExecutionStub }
  | { kind: "edge"; accepted_at: number };

/** A new execution object's id, as an execution id. */
export function newObjectExecutionId(env: Env): string {
  return PREFIX + env.EXECUTIONS.newUniqueId().toString();
}

/**
 * The object every use of an idempotency key by one agent of a tenant reaches first (TRT-002
 * §11). Keys are the agent's own: another agent's same key is another object.
 */
export function keyedObjectId(env: Env, tenant: string, agent: string, key: string): string {
  // A separator that cannot occur in a tenant or agent name keeps ("a", "b:c") and ("a:b", "c") apart.
  return PREFIX + env.EXECUTIONS.idFromName(`${tenant}\u0000${agent}\u0000${key}`).toString();
}

/** A fast-path execution's id: its acceptance time and 128 random bits. */
export function newEdgeExecutionId(acceptedAt: number): string {
  const random = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${PREFIX}e${acceptedAt.toString(16).padStart(12, "0")}${random}`;
}

/** Where an id's record lives, or undefined when the id cannot be one of ours. */
export function locate(env: Env, executionId: string): ExecutionLocation | undefined {
  const edge = EDGE_ID.exec(executionId);
  if (edge) return { kind: "edge", accepted_at: parseInt(edge[1], 16) };
  const object = OBJECT_ID.exec(executionId);
  if (!object) return undefined;
  try {
    return { kind: "object", stub: env.EXECUTIONS.get(env.EXECUTIONS.idFromString(object[1])) };
  } catch {
    return undefined; // well-formed hex that this namespace did not mint
  }
}

/** The object behind an object execution id (one this runtime minted a moment ago). */
export function objectStub(env: Env, executionId: string): ExecutionStub {
  const location = locate(env, executionId);
  if (location?.kind !== "object") throw new Error(`${executionId} is not an execution object's id`);
  return location.stub;
}
