/**
 * `#/bundles`: tool bundles (docs/contract.md#bundles), named subsets of the tools, each served
 * over MCP at `<origin>/mcp/<name>`. A tenant admin's key sees and edits its tenant's own; an
 * operator's key the operators' (seen by every tenant), or a tenant's it names. Each is listed
 * with its selectors, discovery mode and MCP URL; the form creates or replaces one, and Delete
 * (after a confirmation) removes it. The API decides who may: any other key sees its refusal.
 */
import { useMemo, useState } from "preact/hooks";
import type { Bundle } from "../../../client/index.ts";
import { useApp } from "../app-context.ts";
import { ColumnHeads, When } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { useDraft } from "../drafts.ts";
import { bundlesIn, EMPTY_FORM, formOf, mcpUrl, scopeOf, specOf, type BundleForm } from "../lib/bundle-form.ts";
import { useLoad } from "../use-load.ts";
import { BundleEditor } from "./bundles/bundle-editor.tsx";

export function BundlesPage() {
  const { client, role, problem } = useApp();
  const operator = role === "operator";
  const [tenantInput, setTenantInput] = useDraft("bundles.tenant", "");
  const [tenant, setTenant] = useState(tenantInput);
  const scope = useMemo(() => scopeOf(operator, tenant), [operator, tenant]);
  const api = useMemo(() => bundlesIn(client, scope), [client, scope]);
  const { data, error, loading, reload } = useLoad(() => api.list(), [api]);
  const [form, setForm] = useDraft<BundleForm>("bundles.form", EMPTY_FORM);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const whose = scope.operators ? "the operators' bundles" : scope.tenant ? `tenant ${scope.tenant}'s bundles` : null;
  const replacing = !!data?.bundles.some((b) => b.name === form.name.trim());

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setNotice(null);
    setActionError(null);
    try {
      setNotice(await work());
      reload();
    } catch (err) {
      if (!problem(err)) setActionError(err);
    } finally {
      setBusy(false);
    }
  };
  const save = () =>
    act(async () => {
      const { bundle, created } = await api.put(form.name.trim(), specOf(form));
      return `${created ? "Created" : "Replaced"} bundle ${bundle.name}: served at ${mcpUrl(location.origin, bundle.name)}.`;
    });
  const remove = (b: Bundle) => {
    if (!confirm(`Delete bundle ${b.name}? /mcp/${b.name} stops serving it, and keys limited to it lose its tools.`))
      return;
    void act(async () => {
      await api.remove(b.name);
      return `Deleted bundle ${b.name}.`;
    });
  };
  const edit = (b: Bundle) => {
    setForm(formOf(b));
    (document.getElementById("bundle-name") as HTMLInputElement | null)?.focus();
  };
  const show = (e: Event) => {
    e.preventDefault();
    setTenant(tenantInput.trim());
  };

  return (
    <section>
      <h1 tabIndex={-1}>Bundles</h1>
      <p class="muted">
        A bundle is a named subset of the tools: an MCP client pointed at its URL lists and calls only those (never more
        than its key may). A tenant's bundle takes the place of an operators' bundle of the same name for that tenant.
        Only the tenant's admins (and operators) may manage them.
      </p>
      {operator && (
        <form class="row wrap filters" onSubmit={show} aria-label="Whose bundles">
          <div class="field">
            <label for="bundles-tenant">Tenant</label>
            <input
              id="bundles-tenant"
              value={tenantInput}
              placeholder="none: the operators' bundles"
              aria-describedby="bundles-tenant-help"
              onInput={(e) => setTenantInput((e.target as HTMLInputElement).value)}
            />
            <p id="bundles-tenant-help" class="muted">
              empty: the operators' bundles, served to every tenant
            </p>
          </div>
          <button type="submit">Show</button>
        </form>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <Problem error={actionError ?? error} />
      {loading && <p class="muted">Loading…</p>}
      {data && (
        <>
          <table class="data bundles" aria-busy={loading}>
            <caption>
              {data.bundles.length === 0 ? "No bundles yet" : `${data.bundles.length} bundle(s)`}
              {whose && ` — ${whose}`}
            </caption>
            <ColumnHeads labels={["Name", "Selects", "Discovery", "MCP URL", "Updated", ""]} />
            <tbody>
              {data.bundles.map((b) => (
                <BundleRow key={b.name} bundle={b} busy={busy} onEdit={edit} onDelete={remove} />
              ))}
            </tbody>
          </table>
          <BundleEditor form={form} setForm={setForm} replacing={replacing} busy={busy} onSave={() => void save()} />
        </>
      )}
    </section>
  );
}

function BundleRow({
  bundle: b,
  busy,
  onEdit,
  onDelete,
}: {
  bundle: Bundle;
  busy: boolean;
  onEdit: (b: Bundle) => void;
  onDelete: (b: Bundle) => void;
}) {
  const url = mcpUrl(location.origin, b.name);
  const selectors = (
    [
      ["tools", b.tools],
      ["prefixes", b.prefixes],
      ["channels", b.channels],
      ["tags", b.tags],
    ] as const
  ).filter(([, values]) => values.length > 0);
  return (
    <tr data-bundle={b.name}>
      <th scope="row">
        {b.name}
        {b.description && (
          <>
            <br />
            <span class="muted">{b.description}</span>
          </>
        )}
      </th>
      <td>
        <ul class="selectors">
          {selectors.map(([field, values]) => (
            <li key={field} data-selector={field}>
              {field}: {values.join(", ")}
            </li>
          ))}
        </ul>
      </td>
      <td class="discovery">{b.discovery}</td>
      <td>
        <code class="mcp-url">{url}</code>{" "}
        <button
          type="button"
          onClick={() => void navigator.clipboard?.writeText(url)}
          aria-label={`Copy the MCP URL of ${b.name}`}
        >
          Copy
        </button>
      </td>
      <td>
        <When iso={b.updated_at} />
      </td>
      <td>
        <button type="button" onClick={() => onEdit(b)} aria-label={`Edit bundle ${b.name}`}>
          Edit
        </button>{" "}
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => onDelete(b)}
          aria-label={`Delete bundle ${b.name}`}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}
