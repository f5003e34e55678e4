/**
 * One upstream: where it is and how far it is trusted, its last listing (the upstream's own
 * health: did the runtime reach it, which MCP era answered), each tool it serves with the
 * registry's view of it (alive, breaker, error rate), its changes waiting for approval, and the
 * definitions operators rejected.
 */
import { useState } from "preact/hooks";
import type { ToolOfferingView } from "../../../../client/index.ts";
import { useApp } from "../../app-context.ts";
import { percent, When } from "../../components/bits.tsx";
import { Problem } from "../../components/problem.tsx";
import type { UpstreamView } from "../../lib/upstream-admin.ts";
import { href } from "../../router.ts";
import { useLoad } from "../../use-load.ts";
import { DefinitionChange } from "./definition-change.tsx";

export function UpstreamCard({ upstream: u, onChanged }: { upstream: UpstreamView; onChanged: () => void }) {
  const { upstreams, problem } = useApp();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const heading = `upstream-${u.name}`;
  const listAgain = async () => {
    setBusy(true);
    setError(null);
    try {
      await upstreams.refresh(u.name);
      onChanged();
    } catch (err) {
      if (!problem(err)) setError(err);
    } finally {
      setBusy(false);
    }
  };
  const healthy = u.status.error === null && u.status.listed_at !== null;
  return (
    <section class="upstream" aria-labelledby={heading} data-upstream={u.name}>
      <h2 id={heading}>{u.name}</h2>
      <dl class="timings">
        <Fact term="Where">{u.url ?? `service binding ${u.binding}`}</Fact>
        <Fact term="Registered by">{u.source === "admin" ? "the admin API" : "configuration"}</Fact>
        <Fact term="Trust">{u.trust}</Fact>
        <Fact term="Tool names">{u.prefix}…</Fact>
        <Fact term="On a changed definition">
          {u.on_change === "keep" ? "keep serving the approved one" : "withhold the tool"}
        </Fact>
        <Fact term="Credential">
          {u.secret ? `secret ${u.secret}` : "none"}
          {u.tenant_credentials ? "; tenants may store their own" : ""}
        </Fact>
      </dl>
      <p class="upstream-health" data-healthy={String(healthy)}>
        <strong>Listing: </strong>
        {u.status.listed_at === null ? (
          <span class="status tone-unknown">not listed yet</span>
        ) : u.status.error ? (
          <span class="status tone-bad">failed</span>
        ) : (
          <span class="status tone-good">reached</span>
        )}{" "}
        {u.status.listed_at && (
          <>
            last at <When iso={u.status.listed_at} />
            {u.status.era && ` (${u.status.era === "modern" ? "current" : "2025-era"} MCP)`}.{" "}
          </>
        )}
        {u.status.error && <span class="field-error">{u.status.error}</span>} {u.status.served.length} served,{" "}
        {u.status.withheld.length} withheld, {u.status.not_allowed} listed but not allowed.
      </p>
      <button type="button" onClick={listAgain} disabled={busy} aria-label={`List the tools of ${u.name} again now`}>
        {busy ? "Listing…" : "List again now"}
      </button>
      <Problem error={error} />
      <ToolTable upstream={u} />
      {u.changes.length > 0 && (
        <>
          <h3>Changed definitions waiting for approval</h3>
          {u.changes.map((c) => (
            <DefinitionChange key={`${c.tool}/${c.new_hash}`} upstream={u.name} change={c} onDecided={onChanged} />
          ))}
        </>
      )}
      {u.rejections.length > 0 && <Rejections upstream={u} />}
    </section>
  );
}

/** Rejected definitions: listings do not raise these hashes again. */
function Rejections({ upstream: u }: { upstream: UpstreamView }) {
  return (
    <table class="data rejections">
      <caption>Rejected definitions of {u.name}</caption>
      <thead>
        <tr>
          {["Tool", "Definition", "Rejected", "By", "Reason"].map((h) => (
            <th scope="col" key={h}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {u.rejections.map((r) => (
          <tr key={`${r.tool}/${r.hash}`} data-rejected={r.tool}>
            <th scope="row">{`${u.prefix}${r.tool}`}</th>
            <td>
              <code title={r.hash}>{r.hash.slice(0, 12)}</code>
            </td>
            <td>
              <When iso={r.rejected_at} />
            </td>
            <td>{r.rejected_by}</td>
            <td>{r.reason ?? "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Fact({ term, children }: { term: string; children: preact.ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The registry's view of each served tool, as offered by this upstream (a provider of that name). */
function ToolTable({ upstream: u }: { upstream: UpstreamView }) {
  const offers = useLoad(
    (c) =>
      Promise.all(
        u.status.served.map((name) =>
          c.getTool(name).then(
            (t) => t.versions.flatMap((v) => v.providers).find((p) => p.provider === u.name) ?? null,
            () => null,
          ),
        ),
      ),
    [u.name, u.status.served.join(",")],
  );
  const pinOf = (registryName: string) => u.pins.find((p) => registryName === `${u.prefix}${p.tool}`);
  return (
    <table class="data">
      <caption>Tools of {u.name}</caption>
      <thead>
        <tr>
          {["Tool", "Health", "Breaker", "Error rate", "Approved definition"].map((h) => (
            <th scope="col" key={h}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {u.status.served.length === 0 && (
          <tr>
            <td colSpan={5} class="muted">
              It serves no tool now.
            </td>
          </tr>
        )}
        {u.status.served.map((name, i) => {
          const offer: ToolOfferingView | null | undefined = offers.data?.[i];
          const pin = pinOf(name);
          return (
            <tr key={name} data-tool={name}>
              <th scope="row">
                <a href={href("tools", name)}>{name}</a>
              </th>
              <td>{offer ? (offer.disabled ? "switched off" : offer.alive ? "alive" : "not answering") : "–"}</td>
              <td>
                {offer ? (
                  <span class={`breaker breaker-${offer.breaker}`}>{offer.breaker.replace("_", "-")}</span>
                ) : (
                  "–"
                )}
              </td>
              <td>
                {!offer
                  ? "–"
                  : offer.samples === 0
                    ? "no calls yet"
                    : `${percent(offer.error_rate)} of ${offer.samples} calls`}
              </td>
              <td>
                {pin ? (
                  <>
                    <code title={pin.hash}>{pin.hash.slice(0, 12)}</code> by {pin.approved_by},{" "}
                    <When iso={pin.approved_at} />
                  </>
                ) : (
                  "–"
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
