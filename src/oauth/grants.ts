/**
 * A tenant's OAuth grants, for its admins (`GET/DELETE /v1/oauth/grants`, src/routes/oauth-grants.ts):
 * listed from the library's storage by the tenant's user id, and revoked with every token of
 * theirs (the library deletes the grant, its refresh tokens and its access tokens).
 */
import type { GrantSummary } from "@cloudflare/workers-oauth-provider";
import { grantUserOf } from "./endpoints.ts";
import type { GrantMetadata } from "./grant.ts";
import { oauthApi } from "./provider.ts";

/** What `GET /v1/oauth/grants` shows of a grant (docs/oauth.md#grants): never a token or the key. */
export interface GrantView {
  grant_id: string;
  client_id: string;
  client_name: string | null;
  agent: string;
  key_id: string;
  channels?: string[];
  bundle?: string;
  resource: string;
  created_at: string;
  expires_at: string | null;
}

export interface GrantPage {
  grants: GrantView[];
  next_cursor: string | null;
}

export async function listTenantGrants(
  env: Env,
  requestUrl: string,
  tenant: string,
  limit: number,
  cursor?: string,
): Promise<GrantPage> {
  const page = await oauthApi(env, requestUrl).listUserGrants(grantUserOf(tenant), {
    limit,
    ...(cursor ? { cursor } : {}),
  });
  return { grants: page.items.map(viewOf), next_cursor: page.cursor ?? null };
}

/** Revokes the tenant's grant `grantId`; undefined when the tenant has none of that id. */
export async function revokeTenantGrant(
  env: Env,
  requestUrl: string,
  tenant: string,
  grantId: string,
): Promise<GrantView | undefined> {
  const api = oauthApi(env, requestUrl);
  const user = grantUserOf(tenant);
  // Found through the tenant's own listing, so another tenant's grant id is unknown here.
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await api.listUserGrants(user, { limit: 1000, ...(cursor ? { cursor } : {}) });
    const grant = page.items.find((g) => g.id === grantId);
    if (grant) {
      await api.revokeGrant(grantId, user);
      return viewOf(grant);
    }
    if (!page.cursor) return undefined;
    cursor = page.cursor;
  }
  return undefined;
}

function viewOf(g: GrantSummary): GrantView {
  const m = (g.metadata ?? {}) as Partial<GrantMetadata>;
  return {
    grant_id: g.id,
    client_id: g.clientId,
    client_name: m.client_name ?? null,
    agent: m.agent ?? "",
    key_id: m.key_id ?? "",
    ...(m.channels ? { channels: m.channels } : {}),
    ...(m.bundle ? { bundle: m.bundle } : {}),
    resource: m.resource ?? "",
    created_at: new Date(g.createdAt * 1000).toISOString(),
    expires_at: g.expiresAt ? new Date(g.expiresAt * 1000).toISOString() : null,
  };
}
