/**
 * Compares what a README example printed with the output block the README shows after it.
 * "…" stands for what varies:
 *
 *   ```json   one or more JSON values, compared structurally (key order and spacing free):
 *             `…` as a value is any value; `"exec_…"` a string with that shape; `{…}` / `[…]`
 *             any object / array; `{"a": 1, …}` an object with at least those keys (without
 *             `…` the keys must be exactly those); `[30, 29, …]` an array with those items
 *             where shown and any run of items where `…` stands.
 *   ```text   lines; `…` within a line is any text, a line that is only `…` any run of lines.
 *   ```http   `curl -i` output: the status line, the headers shown (any order, any case of
 *             name; `…` lines are the others), a blank line, then the body as JSON or text.
 *
 * Each returns the differences found, as readable lines (empty when it matches).
 */

const ELLIPSIS = "…";

// ---------------------------------------------------------------- JSON with ellipses

type Pattern =
  | { kind: "any" }
  | { kind: "literal"; value: string | number | boolean | null }
  | { kind: "glob"; re: RegExp; text: string }
  | { kind: "object"; members: [string, Pattern][]; open: boolean }
  | { kind: "array"; items: (Pattern | "gap")[] };

class Parser {
  #at = 0;
  constructor(private readonly text: string) {}

  all(): Pattern[] {
    const out: Pattern[] = [];
    for (this.#space(); this.#at < this.text.length; this.#space()) out.push(this.#value());
    return out;
  }

  #space() {
    while (/\s/.test(this.text[this.#at] ?? "")) this.#at++;
  }

  #fail(what: string): never {
    throw new Error(
      `output pattern: ${what} at offset ${this.#at}: ${JSON.stringify(this.text.slice(this.#at, this.#at + 30))}`,
    );
  }

  #eat(s: string): boolean {
    this.#space();
    if (this.text.startsWith(s, this.#at)) {
      this.#at += s.length;
      return true;
    }
    return false;
  }

  #value(): Pattern {
    this.#space();
    const c = this.text[this.#at];
    if (this.#eat(ELLIPSIS)) return { kind: "any" };
    if (c === "{") return this.#object();
    if (c === "[") return this.#array();
    if (c === '"') {
      const s = this.#string();
      return s.includes(ELLIPSIS) ? { kind: "glob", re: globRe(s), text: s } : { kind: "literal", value: s };
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.#at));
    if (!m) this.#fail("expected a JSON value or …");
    this.#at += m[0].length;
    return { kind: "literal", value: JSON.parse(m[0]) as number | boolean | null };
  }

  #string(): string {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(this.text.slice(this.#at));
    if (!m) this.#fail("unterminated string");
    this.#at += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  #object(): Pattern {
    this.#eat("{");
    const members: [string, Pattern][] = [];
    let open = false;
    if (this.#eat("}")) return { kind: "object", members, open };
    do {
      if (this.#eat(ELLIPSIS)) {
        open = true;
        continue;
      }
      this.#space();
      const key = this.#string();
      if (!this.#eat(":")) this.#fail("expected :");
      members.push([key, this.#value()]);
    } while (this.#eat(","));
    if (!this.#eat("}")) this.#fail("expected , or }");
    // `{…}` alone: any object.
    return { kind: "object", members, open };
  }

  #array(): Pattern {
    this.#eat("[");
    const items: (Pattern | "gap")[] = [];
    if (this.#eat("]")) return { kind: "array", items };
    do {
      this.#space();
      if (this.text.startsWith(ELLIPSIS, this.#at)) {
        // `…` as an item is a gap: any run of items (a value pattern needs a key or a place).
        this.#at += ELLIPSIS.length;
        items.push("gap");
        continue;
      }
      items.push(this.#value());
    } while (this.#eat(","));
    if (!this.#eat("]")) this.#fail("expected , or ]");
    return { kind: "array", items };
  }
}

function globRe(pattern: string): RegExp {
  const parts = pattern.split(ELLIPSIS).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`);
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? "nothing" : s.length > 120 ? `${s.slice(0, 117)}...` : s;
};

function matchValue(p: Pattern, v: unknown, path: string): string[] {
  switch (p.kind) {
    case "any":
      return v === undefined ? [`${path || "/"}: missing`] : [];
    case "literal":
      return v === p.value ? [] : [`${path || "/"}: expected ${show(p.value)}, got ${show(v)}`];
    case "glob":
      return typeof v === "string" && p.re.test(v)
        ? []
        : [`${path || "/"}: expected a string like ${show(p.text)}, got ${show(v)}`];
    case "object": {
      if (v === null || typeof v !== "object" || Array.isArray(v))
        return [`${path || "/"}: expected an object, got ${show(v)}`];
      const o = v as Record<string, unknown>;
      const out = p.members.flatMap(([k, sub]) =>
        k in o ? matchValue(sub, o[k], `${path}/${k}`) : [`${path}/${k}: missing`],
      );
      if (!p.open) {
        const extra = Object.keys(o).filter((k) => !p.members.some(([m]) => m === k));
        if (extra.length > 0)
          out.push(`${path || "/"}: keys the README does not show (add them, or "…"): ${extra.join(", ")}`);
      }
      return out;
    }
    case "array": {
      if (!Array.isArray(v)) return [`${path || "/"}: expected an array, got ${show(v)}`];
      return (
        matchItems(p.items, v, 0, 0, path) ?? [
          `${path || "/"}: expected an array like ${describeItems(p.items)}, got ${show(v)}`,
        ]
      );
    }
  }
}

/** Items against a pattern with gaps: null when no alignment fits. */
function matchItems(items: (Pattern | "gap")[], v: unknown[], i: number, j: number, path: string): string[] | null {
  if (i === items.length) return j === v.length ? [] : null;
  const item = items[i];
  if (item === "gap") {
    for (let k = j; k <= v.length; k++) {
      const rest = matchItems(items, v, i + 1, k, path);
      if (rest && rest.length === 0) return rest;
    }
    return null;
  }
  if (j >= v.length) return null;
  const here = matchValue(item, v[j], `${path}/${j}`);
  if (here.length > 0) return items.includes("gap") ? null : here;
  return matchItems(items, v, i + 1, j + 1, path);
}

const describeItems = (items: (Pattern | "gap")[]) =>
  `[${items.map((i) => (i === "gap" ? "…" : i.kind === "literal" ? show(i.value) : i.kind)).join(", ")}]`;

/** Every JSON value in a text: one (what curl prints), or several a line or more each (`jq`). */
export function jsonValues(text: string): unknown[] {
  const whole = text.trim();
  if (whole === "") return [];
  try {
    return [JSON.parse(whole)];
  } catch {
    /* several values */
  }
  const out: unknown[] = [];
  let pending = "";
  for (const line of whole.split("\n")) {
    pending += `${line}\n`;
    try {
      out.push(JSON.parse(pending));
      pending = "";
    } catch {
      /* the value goes on */
    }
  }
  if (pending.trim() !== "") throw new Error(`not JSON: ${show(pending.trim())}`);
  return out;
}

export function matchJson(expected: string, actual: string): string[] {
  const patterns = new Parser(expected).all();
  let values: unknown[];
  try {
    values = jsonValues(actual);
  } catch (err) {
    return [`the output is not JSON (${(err as Error).message})`];
  }
  if (values.length !== patterns.length)
    return [`expected ${patterns.length} JSON value(s), got ${values.length}: ${show(values)}`];
  return patterns.flatMap((p, i) => matchValue(p, values[i], patterns.length > 1 ? `[${i}]` : ""));
}

// ---------------------------------------------------------------- text

const lines = (s: string) => s.replace(/\r/g, "").replace(/\n+$/, "").split("\n");

function matchLines(exp: string[], act: string[], i = 0, j = 0): boolean {
  if (i === exp.length) return j === act.length;
  if (exp[i].trim() === ELLIPSIS) {
    for (let k = j; k <= act.length; k++) if (matchLines(exp, act, i + 1, k)) return true;
    return false;
  }
  return j < act.length && globRe(exp[i]).test(act[j]) && matchLines(exp, act, i + 1, j + 1);
}

export function matchText(expected: string, actual: string): string[] {
  const [exp, act] = [lines(expected), lines(actual)];
  if (matchLines(exp, act)) return [];
  // Say where the first difference is, for a reader fixing the README.
  const firstBad = exp.findIndex((l, i) => l.trim() !== ELLIPSIS && !globRe(l).test(act[i] ?? ""));
  return [
    `the output's lines do not match the README's${firstBad >= 0 ? ` (from README line ${firstBad + 1}: ${show(exp[firstBad])}; printed: ${show(act[firstBad])})` : ""}\n--- printed ---\n${act.join("\n")}`,
  ];
}

// ---------------------------------------------------------------- http (curl -i)

export function matchHttp(expected: string, actual: string): string[] {
  const split = (s: string) => {
    const t = s.replace(/\r/g, "");
    const at = t.indexOf("\n\n");
    return at < 0 ? [t, ""] : [t.slice(0, at), t.slice(at + 2)];
  };
  const [expHead, expBody] = split(expected);
  const [actHead, actBody] = split(actual);
  const [expStatus, ...expHeaders] = expHead.split("\n");
  const [actStatus, ...actHeaders] = actHead.split("\n");
  const out: string[] = [];
  if (!globRe(expStatus.trim()).test((actStatus ?? "").trim()))
    out.push(`status line: expected ${show(expStatus)}, got ${show(actStatus)}`);
  const headers = actHeaders.map((h) => [
    h.slice(0, h.indexOf(":")).trim().toLowerCase(),
    h.slice(h.indexOf(":") + 1).trim(),
  ]);
  for (const line of expHeaders.filter((l) => l.trim() !== ELLIPSIS && l.trim() !== "")) {
    const name = line.slice(0, line.indexOf(":")).trim().toLowerCase();
    const value = globRe(line.slice(line.indexOf(":") + 1).trim());
    if (!headers.some(([n, v]) => n === name && value.test(v)))
      out.push(
        `header ${show(line)}: not in the answer (${show(headers.filter(([n]) => n === name).map(([, v]) => v))})`,
      );
  }
  const body = expBody.trim();
  if (body === "") return out;
  return [
    ...out,
    ...(body.startsWith("{") || body.startsWith("[") ? matchJson(body, actBody) : matchText(body, actBody)),
  ];
}

export function matchOutput(lang: string, expected: string, actual: string): string[] {
  if (lang === "json") return matchJson(expected, actual);
  if (lang === "http") return matchHttp(expected, actual);
  return matchText(expected, actual);
}
