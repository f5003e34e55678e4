/**
 * What every page reads: the signed-in client and role, and `problem(err)` — which turns an
 * `unauthenticated` answer mid-session into the sign-in dialog over the page (so nothing on
 * the page is unmounted and nothing typed is lost) and leaves every other error to the page.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ToolRuntimeClient } from "../../client/index.ts";
import type { GrantAdmin } from "./lib/grant-admin.ts";
import type { UpstreamAdmin } from "./lib/upstream-admin.ts";
import type { Role } from "./session.ts";

export interface AppState {
  client: ToolRuntimeClient;
  role: Role;
  /** The key may decide its tenant's approvals. */
  approver: boolean;
  upstreams: UpstreamAdmin;
  grants: GrantAdmin;
  /** Returns true when the error was handled for the page (the session ended). */
  problem(err: unknown): boolean;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const app = useContext(AppContext);
  if (!app) throw new Error("useApp outside a signed-in console");
  return app;
}
