/** Tools: every tool, searchable by name and description. */
import { href } from "../router.ts";
import { useDraft } from "../drafts.ts";
import { useLoad } from "../use-load.ts";
import { Problem } from "../components/problem.tsx";

export function ToolsPage() {
  const { data, error, loading } = useLoad((c) => c.listTools(), []);
  const [query, setQuery] = useDraft("tools.search", "");
  const q = query.trim().toLowerCase();
  const shown = (data?.tools ?? []).filter((t) => `${t.name} ${t.description}`.toLowerCase().includes(q));
  return (
    <section>
      <h1 tabIndex={-1}>Tools</h1>
      <div class="field">
        <label for="tool-search">Search tools</label>
        <input
          id="tool-search"
          type="search"
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          placeholder="name or words from the description"
        />
      </div>
      <Problem error={error} />
      {loading && !data && <p class="muted">Loading the tools…</p>}
      {data && (
        <>
          <p class="muted" aria-live="polite">
            {shown.length} of {data.tools.length} tools
          </p>
          <ul class="cards">
            {shown.map((t) => (
              <li key={t.name} class="card">
                <a href={href("tools", t.name)} class="card-title">
                  {t.name}
                </a>{" "}
                <span class="muted">v{t.active_version}</span>
                <p>{t.description}</p>
                <p class="muted">providers, best first: {t.providers.join(", ")}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
