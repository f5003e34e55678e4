/** An error in words and what to do (client/explain.ts), announced to screen readers. */
import { explainError, ToolRuntimeError } from "../../../client/index.ts";

export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  const x =
    error instanceof ToolRuntimeError
      ? explainError(error, "web")
      : {
          title: String((error as Error)?.message ?? error),
          action: "Reload the page and try again.",
          lines: [] as string[],
        };
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{x.title}</strong>
      </p>
      {x.lines.length > 0 && (
        <ul>
          {x.lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      )}
      <p>{x.action}</p>
      {error instanceof ToolRuntimeError && (
        <p class="muted">
          <code>{error.code}</code>
          {error.status ? ` · HTTP ${error.status}` : ""}
        </p>
      )}
    </div>
  );
}

/** The error envelope as the API sent it (docs/contract.md#errors), for the Try-it result. */
export function envelopeOf(err: ToolRuntimeError) {
  return {
    error: {
      code: err.code,
      message: err.message,
      type: err.type,
      retryable: err.retryable,
      ...(err.details ? { details: err.details } : {}),
    },
  };
}
