/** One tool: versions and deprecations, providers ranked with their health, schemas, Try it. */
import { useState } from "preact/hooks";
import type { ToolVersionView } from "../../../client/index.ts";
import { JsonBlock, ms, percent } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { href } from "../router.ts";
import { useLoad } from "../use-load.ts";
import { TryIt } from "./try-it.tsx";

export function ToolPage({ name }: { name: string }) {
  const { data: tool, error, reload } = useLoad((c) => c.getTool(name), [name]);
  const [chosen, setChosen] = useState<string | null>(null);
  const version = tool?.versions.find((v) => v.version === (chosen ?? tool.active_version)) ?? tool?.versions[0];
  return (
    <section>
      <p>
        <a href={href("tools")}>← All tools</a>
      </p>
      <h1 tabIndex={-1}>{name}</h1>
      <Problem error={error} />
      {tool && version && (
        <>
          <p>{tool.description}</p>
          <div class="row">
            <div class="field">
              <label for="version">Version</label>
              <select
                id="version"
                value={version.version}
                onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}
              >
                {tool.versions.map((v) => (
                  <option key={v.version} value={v.version}>
                    {v.version}
                    {v.active ? " (active)" : ""}
                    {v.deprecation ? " (deprecated)" : ""}
                  </option>
                ))}
              </select>
            </div>
            <button type="button" onClick={reload}>
              Refresh health
            </button>
          </div>
          {version.deprecation && (
            <p class="notice" role="note">
              Deprecated since {new Date(version.deprecation.deprecated_at).toLocaleDateString()}; calls fail after its
              sunset, {new Date(version.deprecation.sunset).toLocaleString()}.
              {version.deprecation.replacement && <> Use {version.deprecation.replacement} instead.</>}
            </p>
          )}
          <Providers version={version} />
          <div class="row wrap">
            <details>
              <summary>Input schema</summary>
              <JsonBlock value={version.providers[0]?.input_schema} label="Input schema" />
            </details>
            <details>
              <summary>Output schema</summary>
              <JsonBlock value={version.providers[0]?.output_schema} label="Output schema" />
            </details>
          </div>
          <TryIt
            key={`${name}@${version.version}`}
            tool={name}
            version={version.version}
            schema={version.providers[0]?.input_schema}
          />
        </>
      )}
    </section>
  );
}

function Providers({ version }: { version: ToolVersionView }) {
  return (
    <table class="data">
      <caption>Providers of version {version.version}, in the order the runtime ranks them</caption>
      <thead>
        <tr>
          {[
            "Place",
            "Provider",
            "Trust",
            "p50",
            "Error rate",
            "Samples",
            "Breaker",
            "Liveness",
            "Capability",
            "Latency class",
          ].map((h) => (
            <th scope="col" key={h}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {version.providers.map((p, i) => (
          <tr key={p.provider}>
            <td>{i + 1}</td>
            <th scope="row">{p.provider}</th>
            <td>{p.trust}</td>
            <td>{ms(p.p50_ms)}</td>
            <td>{percent(p.error_rate)}</td>
            <td>{p.samples}</td>
            <td>
              <span class={`breaker breaker-${p.breaker}`}>{p.breaker.replace("_", "-")}</span>
            </td>
            <td>{p.disabled ? "disabled" : p.alive ? "alive" : "dead"}</td>
            <td>{p.capability_required ?? "none"}</td>
            <td>{p.latency_class}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
