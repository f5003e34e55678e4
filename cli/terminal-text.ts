/**
 * Text from providers and callers (tool output, log messages, error messages, descriptions) is
 * printed to a terminal, and a terminal obeys the control sequences in what it prints: a tool
 * could move the cursor over earlier lines, retitle the window (OSC), plant a hyperlink, or hide
 * its text. `stripControl` removes every such sequence and control character, keeping the text:
 *
 *   - escape sequences, whole: CSI (`ESC [` … final byte, or the one-byte C1 CSI U+009B);
 *     the string-carrying OSC, DCS, SOS, PM and APC (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`,
 *     `ESC _`, or their C1 forms) up to their terminator (BEL or ST) or the end of the text;
 *     any other `ESC` with its intermediate and final bytes (`ESC ( B`, `ESC 7`, `ESC c`)
 *   - C0 controls and DEL, except newline and tab, which text keeps (a carriage return is
 *     removed: it lets a line overwrite itself)
 *   - C1 controls (U+0080–U+009F), which some terminals obey as escape sequences
 *
 * Pure and runtime-agnostic. JSON output needs none of it for C0 (JSON.stringify escapes
 * them), but does for C1, which JSON.stringify leaves raw.
 */
const CONTROL = new RegExp(
  [
    // CSI: parameter bytes, intermediate bytes, then the final byte (absent at the end of the text).
    String.raw`(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?`,
    // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \ or U+009C), or up to the end.
    String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)`,
    // Any other escape: intermediate bytes and a final byte.
    String.raw`\x1b[\x20-\x2f]*[\x30-\x7e]?`,
    // A single control character: C0 but tab and newline, DEL, C1.
    String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`,
  ].join("|"),
  "g",
);

/** `text` without terminal control sequences or control characters, newlines and tabs kept. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, "");
}

/** JSON text with C1 controls escaped (`\u0080`…): JSON.stringify escapes C0 but leaves C1 raw. */
export function escapeC1(json: string): string {
  return json.replace(/[\u0080-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * An output stream that never carries a control sequence trt did not write itself: human text
 * is stripped, JSON (`json()` true) has its C1 controls escaped. The progress bar draws on the
 * raw stream, since its control codes are trt's own.
 */
export function terminalSafe<T extends { write(text: string): unknown; isTTY?: boolean }>(
  out: T,
  json: () => boolean,
): { write(text: string): unknown; isTTY?: boolean } {
  return { write: (text: string) => out.write(json() ? escapeC1(text) : stripControl(text)), isTTY: out.isTTY };
}
