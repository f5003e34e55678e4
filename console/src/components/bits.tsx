/** Small pieces every page uses: a status badge, a JSON block, a time, a table's column heads. */
import { describeStatus } from "../../../client/index.ts";

export function StatusBadge({ status }: { status: string }) {
  const info = describeStatus(status);
  return (
    <span class={`status tone-${info.tone}`} title={info.meaning} data-status={status}>
      {info.label}
    </span>
  );
}

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">–</span>;
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}

export const ms = (v: number | null | undefined) =>
  v === null || v === undefined ? "–" : `${Math.round(v * 10) / 10} ms`;
export const percent = (v: number | null | undefined) =>
  v === null || v === undefined ? "–" : `${(v * 100).toFixed(1)}%`;

/**
 * Previous/Next over a cursor-paged listing: `cursors` holds the cursors of the pages before
 * this one (the last is this page's), `next` the listing's `next_cursor`.
 */
export function CursorPager({
  label,
  cursors,
  setCursors,
  next,
}: {
  label: string;
  cursors: string[];
  setCursors: (cursors: string[]) => void;
  next: string | null | undefined;
}) {
  return (
    <nav class="row" aria-label={label}>
      <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous page
      </button>
      <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
        Next page
      </button>
    </nav>
  );
}

/** A table's header row; an empty label is the row actions' column, named for screen readers only. */
export function ColumnHeads({ labels }: { labels: string[] }) {
  return (
    <thead>
      <tr>
        {labels.map((h, i) => (
          <th scope="col" key={i}>
            {h || <span class="sr-only">Actions</span>}
          </th>
        ))}
      </tr>
    </thead>
  );
}
