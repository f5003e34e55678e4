/**
 * The console's shell: sign-in, the navigation (operators' pages only for operators' keys; the
 * grants and bundles pages for every key, since no request at sign-in tells a tenant admin apart,
 * and the API's refusal says plainly who may use them), the page for the route, and the sign-in
 * dialog over the page when a key stops working.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { ToolRuntimeError } from "../../client/index.ts";
import { AppContext, type AppState } from "./app-context.ts";
import { Problem } from "./components/problem.tsx";
import { SignIn } from "./components/sign-in.tsx";
import { ApprovalsPage } from "./pages/approvals-page.tsx";
import { BundlesPage } from "./pages/bundles-page.tsx";
import { ExecutionPage } from "./pages/execution-page.tsx";
import { ExecutionsPage } from "./pages/executions-page.tsx";
import { GrantsPage } from "./pages/grants-page.tsx";
import { OperatorsPage } from "./pages/operators-page.tsx";
import { ToolPage } from "./pages/tool-page.tsx";
import { ToolsPage } from "./pages/tools-page.tsx";
import { UpstreamsPage } from "./pages/upstreams-page.tsx";
import { href, useRoute, type Route } from "./router.ts";
import { forgetKey, savedKey, signIn, type Session } from "./session.ts";

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => savedKey() !== null);
  const [restoreError, setRestoreError] = useState<unknown>(null);
  const [expired, setExpired] = useState(false);
  const route = useRoute();

  useEffect(() => {
    const key = savedKey();
    if (!key) return;
    signIn(key)
      .then(setSession, (err) => {
        if (err instanceof ToolRuntimeError && err.code === "unauthenticated") forgetKey();
        setRestoreError(err);
      })
      .finally(() => setRestoring(false));
  }, []);

  // Each page's heading takes the focus, so keyboard and screen-reader users land on it.
  useEffect(() => {
    (document.querySelector("main h1") as HTMLElement | null)?.focus();
  }, [route.parts.join("/"), session !== null]);

  const app = useMemo<AppState | null>(
    () =>
      session && {
        client: session.client,
        role: session.role,
        approver: session.approver,
        upstreams: session.upstreams,
        grants: session.grants,
        problem: (err) => {
          if (err instanceof ToolRuntimeError && err.code === "unauthenticated") {
            setExpired(true);
            return true;
          }
          return false;
        },
      },
    [session],
  );

  if (restoring) return <p class="muted">Signing in…</p>;
  if (!session || !app) {
    return (
      <main>
        <SignIn onSignedIn={setSession} />
        <Problem error={restoreError} />
      </main>
    );
  }
  const signOut = () => {
    forgetKey();
    setSession(null);
  };
  const section = route.parts[0] ?? "tools";
  return (
    <AppContext.Provider value={app}>
      <div inert={expired}>
        <header class="top">
          <button
            type="button"
            class="skip"
            onClick={() => (document.querySelector("main h1") as HTMLElement | null)?.focus()}
          >
            Skip to content
          </button>
          <span class="brand">Tool Runtime</span>
          <nav aria-label="Main">
            <a href={href("tools")} aria-current={section === "tools" ? "page" : undefined}>
              Tools
            </a>
            <a href={href("executions")} aria-current={section === "executions" ? "page" : undefined}>
              Executions
            </a>
            <a href={href("grants")} aria-current={section === "grants" ? "page" : undefined}>
              Grants
            </a>
            <a href={href("bundles")} aria-current={section === "bundles" ? "page" : undefined}>
              Bundles
            </a>
            {session.approver && (
              <a href={href("approvals")} aria-current={section === "approvals" ? "page" : undefined}>
                Approvals
              </a>
            )}
            {session.role === "operator" && (
              <>
                <a href={href("operators")} aria-current={section === "operators" ? "page" : undefined}>
                  Operators
                </a>
                <a href={href("upstreams")} aria-current={section === "upstreams" ? "page" : undefined}>
                  Upstreams
                </a>
              </>
            )}
          </nav>
          <span class="muted">
            {session.role === "operator" ? "operator key" : session.approver ? "approver key" : "tenant key"}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </header>
        <main>{page(route, session)}</main>
      </div>
      {expired && (
        <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="sign-in-heading">
          <SignIn
            expired
            onSignedIn={(s) => {
              setSession(s);
              setExpired(false);
            }}
          />
        </div>
      )}
    </AppContext.Provider>
  );
}

function page(route: Route, session: Session) {
  const [section, id] = route.parts;
  switch (section ?? "tools") {
    case "tools":
      return id ? <ToolPage key={id} name={id} /> : <ToolsPage />;
    case "executions":
      return id ? <ExecutionPage key={id} id={id} /> : <ExecutionsPage />;
    case "grants":
      return <GrantsPage />;
    case "bundles":
      return <BundlesPage />;
    case "operators":
      if (session.role === "operator") return <OperatorsPage />;
      return (
        <Message title="Operators only" text="This key is a tenant's key: the operators' pages are not shown to it." />
      );
    case "upstreams":
      if (session.role === "operator") return <UpstreamsPage />;
      return (
        <Message title="Operators only" text="This key is a tenant's key: the operators' pages are not shown to it." />
      );
    case "approvals":
      if (session.approver) return <ApprovalsPage />;
      return (
        <Message
          title="Approvers only"
          text="This key cannot decide approvals: only a key with the approver role sees its tenant's calls waiting for a person."
        />
      );
    default:
      return <Message title="No such page" text="That address names no page of the console." />;
  }
}

function Message({ title, text }: { title: string; text: string }) {
  return (
    <section>
      <h1 tabIndex={-1}>{title}</h1>
      <p>{text}</p>
      <p>
        <a href={href("tools")}>Back to the tools</a>
      </p>
    </section>
  );
}
