/**
 * Execution ids (docs/contract.md#routes: an id reveals nothing). Every id is unguessable and says where its record lives:
 *   exec_<64 hex>            an ExecutionObject's id (async, streamed and keyed calls)
 *   exec_e<12 hex><32 hex>   a fast-path call that ran at the edge: when it was accepted, 64
 *                            random bits, and 64 bits that only this runtime can compute from
 *                            the two (a seal); its finished record lives in the audit store
 *
 * The seal lets an edge id that this runtime never minted be refused without reading the store
 * (a forged id costs nothing, however recent its time). It is a keyed hash without a secret to
 * manage: a Durable Object namespace's `idFromName` is a deterministic function of the name and
 * the namespace's own key, the same in every isolate, and no caller can compute it.
 */
import { executionStub } from "../object-stubs.ts";
import type { ExecutionObjectRpc } from "./object-rpc.ts";

const PREFIX = "exec_";
const OBJECT_ID = /^exec_([0-9a-f]{64})$/;
const EDGE_ID = /^exec_e([0-9a-f]{12})([0-9a-f]{16})([0-9a-f]{16})$/;

/** A stub of an execution's object, typed by its RPC face (not by the class). */
export type ExecutionStub = DurableObjectStub<ExecutionObjectRpc>;

export type ExecutionLocation = { kind: "object"; stub: ExecutionStub } | { kind: "edge"; accepted_at: number };

/** A new execution object's id, as an execution id. */
export function newObjectExecutionId(env: Env): string {
  return PREFIX + env.EXECUTIONS.newUniqueId().toString();
}

/**
 * The object every use of an idempotency key by one agent of a tenant reaches first
 * (docs/contract.md#idempotency). Keys are the agent's own: another agent's same key is another object.
 */
export function keyedObjectId(env: Env, tenant: string, agent: string, key: string): string {
  // A separator that cannot occur in a tenant or agent name keeps ("a", "b:c") and ("a:b", "c") apart.
  return PREFIX + env.EXECUTIONS.idFromName(`${tenant}\u0000${agent}\u0000${key}`).toString();
}

/** A fast-path execution's id: its acceptance time, 64 random bits and their seal. */
export function newEdgeExecutionId(env: Env, acceptedAt: number): string {
  const time = acceptedAt.toString(16).padStart(12, "0");
  const random = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${PREFIX}e${time}${random}${seal(env, time, random)}`;
}

function seal(env: Env, time: string, random: string): string {
  return env.EXECUTIONS.idFromName(`edge-id\u0000${time}${random}`).toString().slice(0, 16);
}

/** Where an id's record lives, or undefined when the id cannot be one of ours (a forged edge id too). */
export function locate(env: Env, executionId: string): ExecutionLocation | undefined {
  const edge = EDGE_ID.exec(executionId);
  if (edge)
    return edge[3] === seal(env, edge[1], edge[2]) ? { kind: "edge", accepted_at: parseInt(edge[1], 16) } : undefined;
  const object = OBJECT_ID.exec(executionId);
  if (!object) return undefined;
  try {
    return { kind: "object", stub: executionStub(env, object[1]) };
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
