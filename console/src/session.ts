/**
 * Signing in with an API key. The key lives in sessionStorage only: it is gone when the
 * browser tab closes, and never leaves this origin. There is no "who am I" endpoint, so the
 * console asks the API what the key may do: `/v1/tools` proves the key, `/metrics` answers
 * 403 to a tenant's key (a tenant admin's too: it may read its own tenant's audit records, so
 * `/v1/audit` no longer tells) and 200 to an operator's, and only operators see the operators'
 * pages; a tenant key's `/v1/approvals` answers 200 only to an approver, who sees the approvals page.
 */
import { createClient, ToolRuntimeError, type ToolRuntimeClient } from "../../client/index.ts";
import { grantAdmin, type GrantAdmin } from "./lib/grant-admin.ts";
import { upstreamAdmin, type UpstreamAdmin } from "./lib/upstream-admin.ts";

const STORAGE_KEY = "trt.console.key";

export type Role = "operator" | "tenant";

export interface Session {
  client: ToolRuntimeClient;
  role: Role;
  /** The key may decide its tenant's approvals (the approver role). */
  approver: boolean;
  /** The operators' upstream routes (answer 403 to any other key). */
  upstreams: UpstreamAdmin;
  /** The tenant's OAuth grant routes (answer 403 to a key that is not a tenant admin or an operator). */
  grants: GrantAdmin;
}

export function makeClient(key: string): ToolRuntimeClient {
  return createClient({ baseUrl: location.origin, apiKey: key.trim() });
}

/** Checks the key against the API; throws ToolRuntimeError (`unauthenticated`, `network_error`…). */
export async function signIn(key: string): Promise<Session> {
  const client = makeClient(key);
  await client.listTools();
  const allowed = (ask: Promise<unknown>) =>
    ask.then(
      () => true,
      (err) => {
        if (err instanceof ToolRuntimeError && err.code === "forbidden") return false;
        throw err;
      },
    );
  const role: Role = (await allowed(client.metrics())) ? "operator" : "tenant";
  const approver = role === "tenant" && (await allowed(client.listApprovals()));
  sessionStorage.setItem(STORAGE_KEY, key.trim());
  return {
    client,
    role,
    approver,
    upstreams: upstreamAdmin(location.origin, key.trim()),
    grants: grantAdmin(location.origin, key.trim()),
  };
}

export function savedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
