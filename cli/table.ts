/** Aligned columns for people: a header row, then one row per item; the last column is not padded. */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [
    headers,
    ...rows.map((r) => r.map((c) => (c === null || c === undefined || c === "" ? "-" : String(c)))),
  ];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? "")].length)));
  return (
    cells
      .map((r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c + " ".repeat(widths[i] - [...c].length)))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}
