/**
 * The sign-in form: first thing on the page, or a dialog over it when a key stops working
 * mid-session (the page underneath keeps everything typed into it).
 */
import { useState } from "preact/hooks";
import { signIn, type Session } from "../session.ts";
import { Problem } from "./problem.tsx";

export function SignIn({ onSignedIn, expired }: { onSignedIn: (s: Session) => void; expired?: boolean }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(key));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="sign-in" onSubmit={submit} aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading">{expired ? "Your session has ended" : "Sign in"}</h1>
      {expired && (
        <p role="alert">
          The runtime no longer accepts the key this page was using (revoked or expired). Sign in again: nothing on the
          page is lost.
        </p>
      )}
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        autoComplete="off"
        spellcheck={false}
        required
        value={key}
        onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        aria-describedby="api-key-help"
        autoFocus
      />
      <p id="api-key-help" class="muted">
        A <code>trt_…</code> key or a JWT. It is kept in this browser tab only, and forgotten when the tab closes.
      </p>
      <button type="submit" disabled={busy}>
        {busy ? "Checking…" : "Sign in"}
      </button>
      <Problem error={error} />
    </form>
  );
}
