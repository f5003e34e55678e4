/**
 * Listing an upstream's tools (docs/contract.md#upstreams): `tools/list` over every page, past any cache
 * (a changed definition must be seen), with the upstream's own credential, within a bound.
 * Answering it is also the upstream's liveness probe (docs/contract.md#liveness): `ping` exists only before
 * 2026-07-28, the tool list in every era.
 */
import { authorizationFor } from "./authorization.ts";
import { connectUpstream, type Connection } from "./client.ts";
import { allows, type UpstreamConfig } from "./config.ts";
import { definitionHash, definitionOf } from "./definition.ts";
import { classifyUpstreamError, UpstreamFailure } from "./failures.ts";
import { type JsonObject, resultObject, WireError } from "./mcp-wire.ts";
import type { Listed } from "./pinning.ts";
import type { UpstreamEra } from "./target.ts";

export const LIST_TIMEOUT_MS = 5_000;
/** More tools than any registry page should hold; the rest are left out and said so. */
export const MAX_TOOLS = 500;
/** Pages of `tools/list` read at most: an upstream whose cursor never ends must not hold the listing. */
const MAX_PAGES = 50;

export interface Discovery {
  era: UpstreamEra;
  /** The allowed tools, as listed now. */
  listed: Listed[];
  /** Listed tools the allow-list leaves out. */
  notAllowed: number;
}

/** Lists the upstream's allowed tools; throws an Error whose message says what failed (never a secret). */
export async function discover(env: Env, upstream: UpstreamConfig, timeoutMs = LIST_TIMEOUT_MS): Promise<Discovery> {
  const signal = AbortSignal.timeout(timeoutMs);
  let connection: Connection | undefined;
  let credential: "runtime" | "none" = "none";
  try {
    const auth = await authorizationFor(
      env,
      { upstream: upstream.name, secret: upstream.secret, tenant_credentials: false },
      undefined,
    );
    credential = auth.credential === "runtime" ? "runtime" : "none";
    connection = await connectUpstream(env, upstream, { authorization: auth.header, signal, timeoutMs });
    const tools = await listTools(connection, { signal, timeoutMs });
    const allowed = tools.filter(
      (t): t is JsonObject & { name: string } => typeof t.name === "string" && allows(upstream, t.name),
    );
    const listed = await Promise.all(
      allowed.slice(0, MAX_TOOLS).map(async (tool) => {
        const definition = definitionOf(tool);
        return { definition, hash: await definitionHash(definition) };
      }),
    );
    return { era: connection.era, listed, notAllowed: tools.length - allowed.length };
  } catch (err) {
    if (signal.aborted) throw new Error(`tools/list did not answer within ${timeoutMs} ms`);
    const failure =
      err instanceof UpstreamFailure
        ? err.failure
        : classifyUpstreamError(err, { credential, tooLarge: connection?.flags.tooLarge ?? false });
    const message =
      "kind" in failure
        ? failure.kind === "failure"
          ? failure.failure.message
          : failure.kind === "refused"
            ? failure.refusal.message
            : failure.result.message
        : failure.message;
    throw new Error(`tools/list failed: ${message}`);
  } finally {
    await connection?.close();
  }
}

/** Every page of `tools/list` (each request its own round trip; nothing cached between them). */
async function listTools(connection: Connection, o: { signal: AbortSignal; timeoutMs: number }) {
  const tools: (JsonObject & { name?: unknown })[] = [];
  let cursor: unknown;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = resultObject(
      await connection.request("tools/list", typeof cursor === "string" ? { cursor } : {}, o),
      "tools/list",
    );
    if (!Array.isArray(result.tools) || !result.tools.every((t) => typeof t === "object" && t !== null))
      throw new WireError("INVALID_RESULT", "the upstream's tools/list result has no tool list");
    tools.push(...(result.tools as JsonObject[]));
    cursor = result.nextCursor;
    if (typeof cursor !== "string" || cursor === "") break;
  }
  return tools;
}
