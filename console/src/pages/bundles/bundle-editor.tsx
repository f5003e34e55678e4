/**
 * The bundles page's form: create a bundle, or replace one whole (its button says which, by
 * whether the name is listed). The selectors are comma- or line-separated lists; the runtime
 * checks them and a refusal names its field (docs/contract.md#bundles).
 */
import type { Discovery } from "../../../../client/index.ts";
import type { BundleForm } from "../../lib/bundle-form.ts";

const SELECTORS = [
  ["tools", "Tools", "exact names, e.g. math.evaluate"],
  ["prefixes", "Name prefixes", "e.g. text."],
  ["channels", "Channels", "providers: every tool one of them offers"],
  ["tags", "Tags", "every tool whose manifest carries one, e.g. maths"],
] as const;

export function BundleEditor({
  form,
  setForm,
  replacing,
  busy,
  onSave,
}: {
  form: BundleForm;
  setForm: (form: BundleForm) => void;
  /** The name is listed: saving replaces that bundle. */
  replacing: boolean;
  busy: boolean;
  onSave: () => void;
}) {
  const set = (field: keyof BundleForm) => (e: Event) =>
    setForm({ ...form, [field]: (e.target as HTMLInputElement | HTMLTextAreaElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    onSave();
  };
  return (
    <form class="bundle-editor" onSubmit={submit} aria-labelledby="bundle-editor-heading">
      <h2 id="bundle-editor-heading">Create or replace a bundle</h2>
      <p class="muted">
        A tool is in the bundle when any selector matches it; give at least one. Lists are comma- or line-separated.
        Saving a listed name replaces that bundle whole.
      </p>
      <div class="row wrap">
        <div class="field">
          <label for="bundle-name">Name</label>
          <input
            id="bundle-name"
            value={form.name}
            required
            maxLength={64}
            aria-describedby="bundle-name-help"
            onInput={set("name")}
          />
          <p id="bundle-name-help" class="muted">
            lowercase letters, digits, - and _: served at /mcp/name
          </p>
        </div>
        <div class="field">
          <label for="bundle-discovery">Discovery</label>
          <select
            id="bundle-discovery"
            value={form.discovery}
            onChange={(e) => setForm({ ...form, discovery: (e.target as HTMLSelectElement).value as Discovery })}
          >
            <option value="list">list: tools/list lists every tool</option>
            <option value="search">search: tools/list lists search_tools and call_tool</option>
          </select>
        </div>
      </div>
      <div class="field">
        <label for="bundle-description">Description</label>
        <input id="bundle-description" value={form.description} maxLength={1000} onInput={set("description")} />
      </div>
      <div class="row wrap">
        {SELECTORS.map(([field, label, help]) => (
          <div class="field" key={field}>
            <label for={`bundle-${field}`}>{label}</label>
            <textarea
              id={`bundle-${field}`}
              rows={2}
              value={form[field]}
              aria-describedby={`bundle-${field}-help`}
              onInput={set(field)}
            />
            <p id={`bundle-${field}-help`} class="muted">
              {help}
            </p>
          </div>
        ))}
      </div>
      <button type="submit" disabled={busy}>
        {replacing ? "Replace bundle" : "Create bundle"}
      </button>
    </form>
  );
}
