/**
 * `#/grants`: the tenant's OAuth grants (docs/oauth.md#grants) — which MCP client a person of the
 * tenant let call tools with their API key, as which agent, to use what — a page at a time, each
 * with a Revoke button that ends the grant and every token of it at once. The API decides who
 * may see them (the tenant's admins and operators); any other key sees its refusal here.
 */
import { useState } from "preact/hooks";
import { useApp } from "../app-context.ts";
import { ColumnHeads, CursorPager, When } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { useDraft } from "../drafts.ts";
import { grantedScope, type GrantView, type RevokedGrant } from "../lib/grant-admin.ts";
import { useLoad } from "../use-load.ts";

/** The API takes 1 to 1000 a page (src/routes/oauth-grants.ts). */
const MAX_PER_PAGE = 1000;

export function GrantsPage() {
  const { grants, problem } = useApp();
  const [limit, setLimit] = useDraft("grants.limit", "20");
  const [limitInput, setLimitInput] = useState(limit);
  // Cursors of the pages before this one, so "Previous page" can go back.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const { data, error, loading, reload } = useLoad(() => grants.list(perPage(limit), cursor), [grants, limit, cursor]);
  const [revoked, setRevoked] = useState<RevokedGrant | null>(null);
  const [revokeError, setRevokeError] = useState<unknown>(null);

  const apply = (e: Event) => {
    e.preventDefault();
    const size = String(perPage(limitInput));
    setCursors([]);
    setLimitInput(size);
    setLimit(size);
  };
  const revoke = async (g: GrantView) => {
    const what = `${clientLabel(g)} (agent ${g.agent})`;
    if (!confirm(`Revoke the grant to ${what}? Its tokens are refused from now on.`)) return;
    setRevokeError(null);
    setRevoked(null);
    try {
      setRevoked(await grants.revoke(g.grant_id));
      reload();
    } catch (err) {
      if (!problem(err)) setRevokeError(err);
    }
  };

  return (
    <section>
      <h1 tabIndex={-1}>Grants</h1>
      <p class="muted">
        MCP clients that a person of your tenant signed in with OAuth: each grant lets its client call tools as the
        person's API key does, limited to what was granted. Revoking a grant refuses every token of it at once. Only the
        tenant's admins (and operators) may see them.
      </p>
      <form class="row wrap filters" onSubmit={apply} aria-label="Page size">
        <div class="field">
          <label for="grants-limit">Per page</label>
          <input
            id="grants-limit"
            type="number"
            min={1}
            max={MAX_PER_PAGE}
            value={limitInput}
            onInput={(e) => setLimitInput((e.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit">Show</button>
        <button type="button" onClick={reload} disabled={loading}>
          Refresh
        </button>
      </form>
      {revoked && (
        <p class="notice" role="status">
          Revoked the grant to {clientLabel(revoked)} (agent {revoked.agent}): its tokens are refused from now on.
        </p>
      )}
      <Problem error={revokeError ?? error} />
      {loading && <p class="muted">Loading…</p>}
      {data && (
        <table class="data grants" aria-busy={loading}>
          <caption>
            {data.grants.length === 0
              ? cursors.length === 0
                ? "No OAuth grants: no MCP client has signed in for this tenant"
                : "No more grants"
              : `OAuth grants (page ${cursors.length + 1})`}
          </caption>
          <ColumnHeads labels={["Client", "Agent", "Granted", "Created", "Expires", ""]} />
          <tbody>
            {data.grants.map((g) => (
              <tr key={g.grant_id} data-grant-id={g.grant_id}>
                <th scope="row">
                  {g.client_name ?? <span class="muted">(no name)</span>}
                  <br />
                  <code class="client-id">{g.client_id}</code>
                </th>
                <td>
                  {g.agent}
                  <br />
                  <span class="muted">
                    key <code>{g.key_id}</code>
                  </span>
                </td>
                <td>
                  <span class="granted">{grantedScope(g)}</span>
                  <br />
                  <span class="muted">
                    for <code>{g.resource}</code>
                  </span>
                </td>
                <td>
                  <When iso={g.created_at} />
                </td>
                <td>{g.expires_at ? <When iso={g.expires_at} /> : <span class="muted">until revoked</span>}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    onClick={() => void revoke(g)}
                    aria-label={`Revoke the grant to ${clientLabel(g)} (agent ${g.agent})`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CursorPager label="Pages" cursors={cursors} setCursors={setCursors} next={data?.next_cursor} />
    </section>
  );
}

/** A page size the API takes: 1 to 1000, 20 for anything else. */
function perPage(text: string): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= MAX_PER_PAGE ? n : 20;
}

function clientLabel(g: Pick<GrantView, "client_name" | "client_id">): string {
  return g.client_name ? `${g.client_name} (${g.client_id})` : g.client_id;
}
