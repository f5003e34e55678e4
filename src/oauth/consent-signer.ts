/**
 * Who signed in on the consent page (docs/oauth.md#consent): a person with an API key of their
 * tenant, or a person the identity provider vouched for with an ID token
 * (src/oauth/idp-identity.ts). Between the sign-in and the choice the signer is a one-time
 * ticket in OAUTH_KV (ten minutes, bound to the client), so the key is typed once and never
 * written into a page, and the ID token's claims never reach the browser.
 */
import type { Caller } from "../contract.ts";
import type { RequestFacts } from "../auth/local-only.ts";
import { loadConfig } from "../config.ts";
import { keyByHash, type GrantKey } from "./grant-key.ts";
import { callerOfIdentity, idpKeyId, type IdpIdentity } from "./idp-identity.ts";

export interface Signer {
  /** What the grant may reach at most: the key's caller, or the identity's as a bearer JWT maps it. */
  caller: Caller;
  /** The grant's `key_id`: the key's id, or `idp:<issuer host>`. */
  keyId: string;
  /** What the grant keeps to find the signer again on each use of its tokens (src/oauth/grant.ts). */
  proof: { key_hash: string } | { idp: IdpIdentity };
  /** The identity provider's name, when the person signed in through it. */
  via?: string;
}

type Ticket = { client_id: string } & ({ key_hash: string } | { idp: IdpIdentity });

const TICKET_TTL_S = 600;

export function signerOfKey(key: GrantKey): Signer {
  return { caller: key.caller, keyId: key.keyId, proof: { key_hash: key.keyHash } };
}

/** The signer `identity` is under today's configuration; undefined when it no longer maps. */
export function signerOfIdentity(env: Env, identity: IdpIdentity): Signer | undefined {
  const config = loadConfig(env);
  const caller = callerOfIdentity(identity, config.jwt, config.idp);
  return caller && { caller, keyId: idpKeyId(identity), proof: { idp: identity }, via: config.idp?.name };
}

/** A new ticket standing for `signer` on the page of client `clientId`. */
export async function putTicket(env: Env, signer: Signer, clientId: string): Promise<string> {
  const ticket = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const stored: Ticket = { client_id: clientId, ...signer.proof };
  await env.OAUTH_KV.put(`consent:${ticket}`, JSON.stringify(stored), { expirationTtl: TICKET_TTL_S });
  return ticket;
}

/**
 * The signer of a live ticket for this client, as it is now: a key read again by its hash (a
 * key revoked meanwhile signs nothing), an identity mapped again with today's configuration.
 */
export async function signerOfTicket(
  env: Env,
  request: RequestFacts,
  ticket: string,
  clientId: string,
): Promise<Signer | undefined> {
  if (!/^[0-9a-f]{32}$/.test(ticket)) return undefined;
  const stored = await env.OAUTH_KV.get<Ticket>(`consent:${ticket}`, "json");
  if (!stored || stored.client_id !== clientId) return undefined;
  if ("idp" in stored) return signerOfIdentity(env, stored.idp);
  const key = await keyByHash(env, request, stored.key_hash);
  return key && signerOfKey(key);
}

export async function dropTicket(env: Env, ticket: string): Promise<void> {
  await env.OAUTH_KV.delete(`consent:${ticket}`);
}
