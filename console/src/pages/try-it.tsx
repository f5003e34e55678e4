/**
 * Try it: a form generated from the input schema beside a raw JSON editor (the JSON is what
 * is sent; the form edits it), run sync, async, streamed or as a dry run. Everything typed is
 * kept per tool in the tab's session storage; nothing is cleared by a failure.
 */
import { useMemo, useState } from "preact/hooks";
import {
  ToolRuntimeError,
  type DryRunReport,
  type ExecutionView,
  type InvokeOptions,
  type StreamEvent,
} from "../../../client/index.ts";
import { useApp } from "../app-context.ts";
import { JsonBlock } from "../components/bits.tsx";
import { envelopeOf, Problem } from "../components/problem.tsx";
import { useDraft } from "../drafts.ts";
import { formFor, type Field } from "../lib/schema-form.ts";
import { go } from "../router.ts";
import { ExecutionMonitor } from "./execution-monitor.tsx";
import { ResultView } from "./result-view.tsx";
import { SchemaFields } from "./schema-fields.tsx";

type Mode = "sync" | "async" | "stream" | "dry_run";
type Outcome =
  | { kind: "view"; view: ExecutionView; error?: ToolRuntimeError }
  | { kind: "refused"; error: unknown }
  | { kind: "dry_run"; report: DryRunReport }
  | { kind: "stream"; id: string; events: AsyncGenerator<StreamEvent>; drops: EventTarget };

const MODES: { mode: Mode; label: string }[] = [
  { mode: "sync", label: "Run" },
  { mode: "async", label: "Start (async)" },
  { mode: "stream", label: "Run streamed" },
  { mode: "dry_run", label: "Dry run" },
];

export function TryIt({ tool, version, schema }: { tool: string; version: string; schema: unknown }) {
  const { client, problem } = useApp();
  const model = useMemo(() => formFor(schema), [schema]);
  const [text, setText] = useDraft(`input.${tool}@${version}`, () =>
    JSON.stringify(example(model.ok ? model.fields : []), null, 2),
  );
  const [timeout, setTimeoutMs] = useDraft(`timeout.${tool}`, "");
  const [busy, setBusy] = useState<Mode | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const parsed = useMemo(() => parse(text), [text]);

  const run = async (mode: Mode) => {
    if (!parsed.ok) return;
    const options: InvokeOptions = { version, ...(timeout ? { limits: { timeout_ms: Number(timeout) } } : {}) };
    setBusy(mode);
    setOutcome(null);
    try {
      if (mode === "sync") setOutcome({ kind: "view", view: await client.invoke(tool, parsed.value, options) });
      else if (mode === "dry_run")
        setOutcome({ kind: "dry_run", report: await client.dryRun(tool, parsed.value, options) });
      else if (mode === "async") go("executions", (await client.start(tool, parsed.value, options)).execution_id);
      else {
        const drops = new EventTarget();
        const s = await client.invokeStream(tool, parsed.value, {
          ...options,
          onDrop: (info) => drops.dispatchEvent(new CustomEvent("drop", { detail: info })),
        });
        setOutcome({ kind: "stream", id: s.execution_id, events: s.events, drops });
      }
    } catch (err) {
      if (err instanceof ToolRuntimeError && err.execution)
        setOutcome({ kind: "view", view: err.execution, error: err });
      else if (!problem(err)) setOutcome({ kind: "refused", error: err });
    } finally {
      setBusy(null);
    }
  };

  const input =
    parsed.ok && parsed.value !== null && typeof parsed.value === "object" && !Array.isArray(parsed.value)
      ? (parsed.value as Record<string, unknown>)
      : null;
  return (
    <section class="try-it" aria-labelledby="try-it-heading">
      <h2 id="try-it-heading">Try it</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run("sync");
        }}
      >
        <div class="try-grid">
          <fieldset>
            <legend>Input form</legend>
            {model.ok ? (
              <SchemaFields fields={model.fields} input={input} text={text} onText={setText} />
            ) : (
              <p role="note" class="notice">
                This tool's input cannot be shown as a form ({model.reason}). Write it as JSON instead.
              </p>
            )}
          </fieldset>
          <div class="field">
            <label for="raw-json">Input as JSON</label>
            <textarea
              id="raw-json"
              class="code"
              rows={12}
              spellcheck={false}
              value={text}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
              aria-invalid={!parsed.ok}
              aria-describedby="raw-json-state"
            />
            <p id="raw-json-state" class={parsed.ok ? "muted" : "field-error"} aria-live="polite">
              {parsed.ok ? "This JSON is what will be sent." : `Not valid JSON yet: ${parsed.message}`}
            </p>
          </div>
        </div>
        <div class="row wrap">
          <div class="field">
            <label for="timeout-ms">Timeout (ms, optional)</label>
            <input
              id="timeout-ms"
              type="number"
              min={1}
              step={1}
              value={timeout}
              onInput={(e) => setTimeoutMs((e.target as HTMLInputElement).value)}
            />
          </div>
        </div>
        <div class="actions" role="group" aria-label="Run the tool">
          {MODES.map(({ mode, label }) => (
            <button
              key={mode}
              data-mode={mode}
              type={mode === "sync" ? "submit" : "button"}
              disabled={busy !== null || !parsed.ok}
              onClick={mode === "sync" ? undefined : () => void run(mode)}
            >
              {label}
            </button>
          ))}
        </div>
      </form>
      <p aria-live="polite" class="muted">
        {busy ? `Running (${busy})…` : ""}
      </p>
      {outcome?.kind === "refused" && (
        <>
          <Problem error={outcome.error} />
          {outcome.error instanceof ToolRuntimeError && !outcome.error.local && (
            <JsonBlock value={envelopeOf(outcome.error)} label="Error envelope" />
          )}
        </>
      )}
      {outcome?.kind === "view" && <ResultView view={outcome.view} error={outcome.error} />}
      {outcome?.kind === "dry_run" && <DryRun report={outcome.report} />}
      {outcome?.kind === "stream" && (
        <ExecutionMonitor key={outcome.id} id={outcome.id} events={outcome.events} drops={outcome.drops} />
      )}
    </section>
  );
}

function DryRun({ report }: { report: DryRunReport }) {
  return (
    <div class="result" aria-label="Dry run">
      <h3>Dry run: {report.provider ? `${report.provider} would serve it` : "no provider would serve it"}</h3>
      <p>
        Capability:{" "}
        {report.capability.allowed
          ? "allowed"
          : `denied (level ${String(report.capability.denial?.level)}: ${report.capability.denial?.reason})`}{" "}
        · Schema: {report.schema.valid ? "valid" : `${report.schema.violations.length} violation(s)`}
      </p>
      <JsonBlock value={report} label="Dry run report" />
    </div>
  );
}

function parse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** A first input: each required field's default, or an empty value of its kind. */
function example(fields: Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.default !== undefined) out[f.name] = f.default;
    else if (f.required)
      out[f.name] =
        f.kind === "text"
          ? ""
          : f.kind === "boolean"
            ? false
            : f.kind === "list"
              ? []
              : f.kind === "select"
                ? f.options![0]
                : (f.min ?? 0);
  }
  return out;
}
