/**
 * What an OAuth grant holds (docs/oauth.md#grants), and the caller a token of it stands for.
 * A grant is made by a person signed in with an API key, and it can never reach further than
 * that key does now: every use re-reads the key, a revoked key ends its grants' tokens, and
 * what the grant names is cut down to what the key still allows. A person signed in through the
 * identity provider stands where the key would: the claims of their ID token, mapped again on
 * every use (src/oauth/idp-identity.ts). Pure.
 */
import type { Caller } from "../contract.ts";
import type { IdpIdentity } from "./idp-identity.ts";

/** The grant's props, sealed by the library (encrypted with each token's secret). One of `key_hash` and `idp`. */
export interface GrantProps {
  tenant: string;
  agent: string;
  key_id: string;
  /** SHA-256 of the API key that made the grant: the key is found by it on every use. */
  key_hash?: string;
  /** The person who made the grant through the identity provider, instead of a key. */
  idp?: IdpIdentity;
  /** What the client may use: these of the key's channels (`"*"`: all the key's), or one bundle's tools. */
  channels?: string[];
  bundle?: string;
  /** The protected resource the grant is for (RFC 8707): its tokens' audience. */
  resource: string;
}

/** The grant's metadata, stored in the clear so that a tenant's admin can list and revoke grants. */
export interface GrantMetadata {
  agent: string;
  key_id: string;
  client_name: string | null;
  channels?: string[];
  bundle?: string;
  resource: string;
}

/** What the consent page lets a person choose. */
export type GrantChoice = { channels: string[] } | { bundle: string };

/**
 * The caller a token of the grant stands for, given the caller its key (or its signed-in identity) is today: the key's
 * tenant, agent and capabilities, never an operator's or an admin's role (a token calls tools),
 * and only the channels or the bundle the grant names that the key still allows.
 */
export function callerOfGrant(props: GrantProps, key: Caller): Caller | undefined {
  if (props.tenant !== key.tenant || props.agent !== key.agent) return undefined;
  if (props.bundle !== undefined) {
    const bundles = key.bundles && !key.bundles.includes(props.bundle) ? [] : [props.bundle];
    return {
      tenant: key.tenant,
      agent: key.agent,
      capabilities: key.capabilities,
      channels: key.channels,
      role: "agent",
      bundles,
    };
  }
  return {
    tenant: key.tenant,
    agent: key.agent,
    capabilities: key.capabilities,
    channels: narrowChannels(props.channels ?? [], key.channels),
    role: "agent",
    ...(key.bundles ? { bundles: key.bundles } : {}),
  };
}

/** The granted channels the key still allows; `"*"` in the grant is whatever the key allows. */
export function narrowChannels(granted: readonly string[], keyChannels: readonly string[]): string[] {
  if (granted.includes("*")) return [...keyChannels];
  if (keyChannels.includes("*")) return [...granted];
  return granted.filter((c) => keyChannels.includes(c));
}

/**
 * A person's choice, checked against the key that signs in: channels the key allows (or all of
 * them), or a bundle that exists and, for a key limited to bundles, is one of its own.
 * Returns the refusal's words, or undefined.
 */
export function choiceProblem(choice: GrantChoice, key: Caller, bundles: readonly string[]): string | undefined {
  if ("bundle" in choice) {
    if (!bundles.includes(choice.bundle)) return `no bundle ${choice.bundle}`;
    if (key.bundles && !key.bundles.includes(choice.bundle)) return `the key is not limited to bundle ${choice.bundle}`;
    return undefined;
  }
  if (choice.channels.length === 0) return "choose at least one channel, or a bundle";
  if (choice.channels.includes("*")) return undefined;
  const outside = choice.channels.filter((c) => !key.channels.includes("*") && !key.channels.includes(c));
  return outside.length > 0 ? `the key does not allow ${outside.join(", ")}` : undefined;
}
