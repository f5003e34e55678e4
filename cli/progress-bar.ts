/**
 * A progress bar for `progress` events, on stderr so that stdout stays the result. On a
 * terminal it redraws one line; elsewhere (a pipe, a log) it writes a line each time the
 * whole percentage changes.
 */
export class ProgressBar {
  private shown = -1;
  private drawn = false;
  private readonly out: { write(s: string): unknown; isTTY?: boolean };
  private readonly width: number;
  // Plain fields, not parameter properties: `bin/trt.js` runs this source with Node's type
  // stripping, which refuses syntax that is more than erasable types.
  constructor(out: { write(s: string): unknown; isTTY?: boolean }, width = 30) {
    this.out = out;
    this.width = width;
  }

  update(fraction: number, note = ""): void {
    const percent = Math.round(fraction * 100);
    if (percent === this.shown && !this.out.isTTY) return;
    this.shown = percent;
    const full = Math.round(fraction * this.width);
    const bar = `[${"#".repeat(full)}${"-".repeat(this.width - full)}] ${String(percent).padStart(3)}%${note ? `  ${note}` : ""}`;
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${bar}`);
      this.drawn = true;
    } else {
      this.out.write(`progress ${bar}\n`);
    }
  }

  /** Leaves the line before other output is written below it. */
  clear(): void {
    if (this.drawn) this.out.write("\r\x1b[2K");
    this.drawn = false;
  }
}
