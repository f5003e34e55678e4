import { describe, expect, it } from "vitest";
import { escapeC1, stripControl, terminalSafe } from "../../../cli/terminal-text.ts";

const ESC = "\x1b";

describe("stripControl", () => {
  it("keeps ordinary text, newlines, tabs and non-Latin characters", () => {
    const text = "line one\n\tindented — café 日本語 😀\nend";
    expect(stripControl(text)).toBe(text);
    expect(stripControl("")).toBe("");
  });

  it("removes C0 controls but newline and tab, and DEL", () => {
    const c0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("");
    expect(stripControl(`a${c0}b\x7fc`)).toBe("a\t\nbc");
    expect(stripControl("progress 10%\rprogress 20%")).toBe("progress 10%progress 20%");
    expect(stripControl("bell\x07 backspace\x08\x08")).toBe("bell backspace");
  });

  it("removes C1 controls", () => {
    // All 32 but CSI and the five that open a string (DCS, SOS, OSC, PM, APC), which take the
    // bytes after them along (tests below), each on its own.
    const c1 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)).filter(
      (c) => !"\x90\x98\x9b\x9d\x9e\x9f".includes(c),
    );
    expect(c1).toHaveLength(26);
    for (const c of c1) expect(stripControl(`a${c}b`)).toBe("ab");
    expect(stripControl("a\u00a0b")).toBe("a\u00a0b"); // no-break space, just past C1
  });

  it("removes CSI sequences whole: colours, cursor moves, erasing, private modes", () => {
    expect(stripControl(`${ESC}[31mred${ESC}[0m`)).toBe("red");
    expect(stripControl(`${ESC}[1;32;48;5;200mx${ESC}[m`)).toBe("x");
    expect(stripControl(`safe${ESC}[2A${ESC}[2K${ESC}[1Gforged line`)).toBe("safeforged line");
    expect(stripControl(`${ESC}[?25l${ESC}[?1049hhidden`)).toBe("hidden");
    expect(stripControl(`${ESC}[ q`)).toBe(""); // an intermediate byte before the final
    expect(stripControl("\x9b31mc1 csi\x9b0m")).toBe("c1 csi");
    expect(stripControl(`cut off ${ESC}[12;`)).toBe("cut off ");
  });

  it("removes OSC sequences whole, ended by BEL, by ST, or by the end of the text", () => {
    expect(stripControl(`${ESC}]0;evil title\x07text`)).toBe("text");
    expect(stripControl(`${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`)).toBe("click");
    expect(stripControl(`\x9d0;title\x9cafter`)).toBe("after");
    expect(stripControl(`before${ESC}]52;c;c2VjcmV0 never ended`)).toBe("before");
  });

  it("removes DCS, SOS, PM and APC strings", () => {
    for (const opener of [`${ESC}P`, `${ESC}X`, `${ESC}^`, `${ESC}_`, "\x90", "\x98", "\x9e", "\x9f"]) {
      expect(stripControl(`a${opener}payload${ESC}\\b`)).toBe("ab");
    }
  });

  it("removes other escapes with their bytes, and a lone ESC", () => {
    expect(stripControl(`${ESC}(Bcharset ${ESC}7saved${ESC}8 ${ESC}creset ${ESC}#8`)).toBe("charset saved reset ");
    expect(stripControl(`end${ESC}`)).toBe("end");
    expect(stripControl(`${ESC}${ESC}[31mx`)).toBe("x");
  });

  it("leaves nothing a terminal would obey, whatever the input", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 200; i++) {
      const text = Array.from({ length: 40 }, () => String.fromCharCode(next() % 0xa0)).join("");
      expect(stripControl(text)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    }
  });
});

describe("terminalSafe", () => {
  const sink = () => {
    const written: string[] = [];
    return { written, out: { write: (t: string) => written.push(t), isTTY: true } };
  };

  it("strips what human output carries, and keeps the stream's isTTY", () => {
    const { written, out } = sink();
    const safe = terminalSafe(out, () => false);
    safe.write(`tool said ${ESC}[2J${ESC}]0;pwned\x07hello\r\n`);
    expect(written).toEqual(["tool said hello\n"]);
    expect(safe.isTTY).toBe(true);
  });

  it("escapes C1 in JSON output, which JSON.stringify leaves raw, and keeps it valid JSON", () => {
    const { written, out } = sink();
    terminalSafe(out, () => true).write(JSON.stringify({ text: "a\x9b31mb" }));
    expect(written[0]).toBe('{"text":"a\\u009b31mb"}');
    expect(JSON.parse(written[0])).toEqual({ text: "a\x9b31mb" });
    expect(escapeC1("plain")).toBe("plain");
  });
});
