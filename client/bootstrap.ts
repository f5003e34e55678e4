/**
 * The one-time operator bootstrap (`POST /v1/admin/bootstrap`): a fresh deployment's first
 * operator key, authorized by the deployment's BOOTSTRAP_TOKEN secret rather than an API key,
 * so it is a function of its own, not a method of a client that holds a key.
 *
 *   const { key } = await bootstrapOperator({ baseUrl, bootstrapToken: process.env.TRT_BOOTSTRAP_TOKEN! });
 *
 * Refusals throw ToolRuntimeError: `forbidden` (403, `details.reason: "bootstrap_used"`) once
 * the bootstrap was used, `unauthenticated` (401) for a wrong token, `not_found` (404) when the
 * deployment has no BOOTSTRAP_TOKEN.
 */
import type { ApiKeyRecord } from "../src/contract.ts";
import { localError } from "./errors.ts";
import { createTransport } from "./http.ts";

export interface BootstrapOptions {
  baseUrl: string;
  /** The deployment's BOOTSTRAP_TOKEN secret; sent as `Authorization: Bearer …`. */
  bootstrapToken: string;
  /** The new key's tenant (default "ops") and agent (default "operator"). */
  tenant?: string;
  agent?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Mints the first operator key; its `key` is shown in this answer only. */
export async function bootstrapOperator(options: BootstrapOptions): Promise<ApiKeyRecord & { key: string }> {
  if (typeof options.bootstrapToken !== "string" || options.bootstrapToken.trim() === "")
    throw localError(
      "invalid_argument",
      "no bootstrap token was given; pass bootstrapToken (the deployment's BOOTSTRAP_TOKEN)",
    );
  const t = createTransport(
    options.baseUrl,
    options.bootstrapToken,
    options.fetch ?? ((input, init) => fetch(input, init)),
  );
  const body = {
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
  };
  return t.json(await t.request("POST", "/v1/admin/bootstrap", { body }));
}
