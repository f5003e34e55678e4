/** API keys: create one (its secret is shown once, here), list them, revoke one. */
import { useState } from "preact/hooks";
import type { ApiKeyRecord } from "../../../../client/index.ts";
import { useApp } from "../../app-context.ts";
import { ColumnHeads, When } from "../../components/bits.tsx";
import { Problem } from "../../components/problem.tsx";
import { useDraft } from "../../drafts.ts";
import { useLoad } from "../../use-load.ts";

const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
/** agent: its own executions; tenant_admin: its tenant's executions, audit, upstream tokens and keys; approver: decides approvals; admin: an operator. */
const ROLES = ["agent", "tenant_admin", "approver", "admin"] as const;

export function ApiKeys() {
  const { client, problem } = useApp();
  const [form, setForm] = useDraft("keys.form", {
    tenant: "",
    agent: "",
    capabilities: "",
    channels: "",
    role: "agent",
  });
  const [created, setCreated] = useState<(ApiKeyRecord & { key: string }) | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tenantFilter, setTenantFilter] = useState("");
  const keys = useLoad((c) => c.listKeys(tenantFilter.trim() || undefined), [tenantFilter]);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const role = ROLES.find((r) => r === form.role) ?? "agent";
      setCreated(
        await client.createKey({
          tenant: form.tenant.trim(),
          agent: form.agent.trim(),
          capabilities: list(form.capabilities),
          channels: list(form.channels),
          role,
        }),
      );
      keys.reload();
    } catch (err) {
      if (!problem(err)) setError(err);
    }
  };
  const revoke = async (k: ApiKeyRecord) => {
    if (!confirm(`Revoke ${k.key_id} (${k.tenant} / ${k.agent})? Calls with it fail from now on.`)) return;
    setError(null);
    try {
      await client.revokeKey(k.key_id);
      keys.reload();
    } catch (err) {
      if (!problem(err)) setError(err);
    }
  };
  const input = (name: "tenant" | "agent" | "capabilities" | "channels", label: string, help?: string) => (
    <div class="field">
      <label for={`key-${name}`}>{label}</label>
      <input
        id={`key-${name}`}
        value={form[name]}
        required={name === "tenant" || name === "agent"}
        aria-describedby={help ? `key-${name}-help` : undefined}
        onInput={(e) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value })}
      />
      {help && (
        <p id={`key-${name}-help`} class="muted">
          {help}
        </p>
      )}
    </div>
  );
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <form class="row wrap" onSubmit={create} aria-label="New API key">
        {input("tenant", "Tenant")}
        {input("agent", "Agent")}
        {input("capabilities", "Capabilities", "comma-separated, e.g. network:api.example.com")}
        {input(
          "channels",
          "Channels",
          "providers it may reach, comma-separated, * for all; left empty the key reaches none (least privilege)",
        )}
        <div class="field">
          <label for="key-role">Role</label>
          <select
            id="key-role"
            value={form.role}
            onChange={(e) => setForm({ ...form, role: (e.target as HTMLSelectElement).value })}
          >
            <option value="agent">agent (its own executions)</option>
            <option value="tenant_admin">
              tenant admin (its tenant's executions, audit, upstream tokens and keys)
            </option>
            <option value="approver">approver (also decides its tenant's approvals)</option>
            <option value="admin">admin (operator)</option>
          </select>
        </div>
        <button type="submit">Create key</button>
      </form>
      {created && (
        <div class="notice" role="alert">
          <p>
            <strong>
              New key for {created.tenant} / {created.agent}.
            </strong>{" "}
            Copy it now: it is shown this once and cannot be read again.
          </p>
          <label for="new-key">The new key</label>
          <input id="new-key" readOnly value={created.key} onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.key)}>
            Copy
          </button>{" "}
          <button type="button" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      <Problem error={error ?? keys.error} />
      <div class="field">
        <label for="keys-tenant">List the keys of tenant</label>
        <input
          id="keys-tenant"
          value={tenantFilter}
          onInput={(e) => setTenantFilter((e.target as HTMLInputElement).value)}
          placeholder="all tenants"
        />
      </div>
      {keys.data && (
        <table class="data">
          <caption>{keys.data.keys.length} key(s); secrets are never listed</caption>
          <ColumnHeads labels={["Key id", "Tenant", "Agent", "Role", "Capabilities", "Channels", "Created", ""]} />
          <tbody>
            {keys.data.keys.map((k) => (
              <tr key={k.key_id}>
                <th scope="row">
                  <code>{k.key_id}</code>
                </th>
                <td>{k.tenant}</td>
                <td>{k.agent}</td>
                <td>{k.role}</td>
                <td>{k.capabilities.join(", ") || "none"}</td>
                <td>{k.channels.join(", ") || "none"}</td>
                <td>
                  <When iso={k.created_at} />
                </td>
                <td>
                  {k.revoked_at ? (
                    <span class="muted">revoked</span>
                  ) : (
                    <button
                      type="button"
                      class="danger"
                      onClick={() => void revoke(k)}
                      aria-label={`Revoke ${k.key_id} (${k.tenant} / ${k.agent})`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
