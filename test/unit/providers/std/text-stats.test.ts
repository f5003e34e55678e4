/**
 * text.stats (std and community) on any text the schema admits: the same answers as the
 * regex versions they replaced, on short random texts, and answers within the test timeout
 * on adversarial texts of the schema's maximum length, where the old regex backtracked for seconds. The old std version needs
 * about 25 minutes for the first adversarial case below (5.3 s for 60,000 full stops,
 * quadratic); no duration is asserted, the default 5 s test timeout is the bound.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measurePlainly } from "../../../../providers/community/src/tools/text-stats.ts";
import { measureText } from "../../../../providers/std/src/tools/text-stats.ts";

const MAX = 1_000_000; // textStatsInput's maxLength

/** The std implementation before the one-pass rewrite, kept as the specification it must still meet. */
function regexStats(text: string, wordsPerMinute: number) {
  const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
  const words = text.split(/\s+/u).filter((token) => HAS_LETTER_OR_DIGIT.test(token)).length;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return {
    characters: [...text].length,
    words,
    lines: text === "" ? 0 : /[\r\n]$/.test(text) ? breaks : breaks + 1,
    sentences: text.split(/[.!?…。！？]+(?=\s|$)/gu).filter((part) => HAS_LETTER_OR_DIGIT.test(part)).length,
    reading_time_seconds: Math.ceil((words * 60) / wordsPerMinute),
  };
}

/** The community implementation before the one-pass rewrite. */
function plainRegexStats(text: string, wordsPerMinute: number) {
  const words = text.split(/\s+/).filter(Boolean).length;
  return {
    characters: Array.from(text).length,
    words,
    lines: text === "" ? 0 : text.split("\n").length,
    sentences: (text.match(/[.!?]+/g) ?? []).length,
    reading_time_seconds: Math.round((words / wordsPerMinute) * 60),
  };
}

// Every class the counters distinguish: letters and digits (ASCII, accented, CJK, astral),
// each sentence end, every kind of whitespace and line break, marks, symbols, surrogates.
const TRICKY = [
  "a",
  "Z",
  "7",
  "é",
  "ß",
  "字",
  "٣",
  "𝒜",
  "😀",
  "\u0301",
  "—",
  "-",
  ",",
  ";",
  "'",
  '"',
  ".",
  "!",
  "?",
  "…",
  "。",
  "！",
  "？",
  " ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\v",
  "\f",
  "\u00a0",
  "\u1680",
  "\u2003",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
  "\u180e",
  "\u200b",
  "\ud800",
  "\udc00",
  "3.14",
  "e.g.",
  "x",
];
const trickyText = fc.array(fc.constantFrom(...TRICKY), { maxLength: 60 }).map((parts) => parts.join(""));

describe("text.stats (std) keeps its meaning", () => {
  it("agrees with the regex version on random texts", () => {
    fc.assert(
      fc.property(trickyText, fc.integer({ min: 1, max: 1000 }), (text, wpm) => {
        expect(measureText(text, wpm)).toEqual(regexStats(text, wpm));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("text.stats (community) keeps its meaning", () => {
  it("agrees with the regex version on random texts", () => {
    fc.assert(
      fc.property(trickyText, fc.integer({ min: 1, max: 1000 }), (text, wpm) => {
        expect(measurePlainly(text, wpm)).toEqual(plainRegexStats(text, wpm));
      }),
      { numRuns: 2000 },
    );
  });
});

/** `unit` repeated to exactly MAX UTF-16 units (cut mid-unit if it must). */
const filled = (unit: string, tail = "") =>
  unit.repeat(Math.ceil(MAX / unit.length)).slice(0, MAX - tail.length) + tail;

describe("text.stats on adversarial texts of the maximum length", () => {
  const cases: [string, string, Partial<ReturnType<typeof measureText>>, Partial<ReturnType<typeof measurePlainly>>][] =
    [
      [
        "full stops then a letter (the case that backtracked)",
        filled(".", "x"),
        { sentences: 1, words: 1, lines: 1 },
        { sentences: 1, words: 1 },
      ],
      ["only full stops", filled("."), { sentences: 0, words: 0 }, { sentences: 1, words: 1 }],
      ["mixed sentence ends then a letter", filled("!?…。", "x"), { sentences: 1, words: 1 }, { words: 1 }],
      [
        "'a.' repeated (a sentence end only at the very end)",
        filled("a."),
        { sentences: 1, words: 1 },
        { sentences: MAX / 2, words: 1 },
      ],
      ["'a. ' repeated", filled("a. ", ""), { words: Math.ceil(MAX / 3) }, {}],
      ["spaces", filled(" "), { words: 0, sentences: 0, lines: 1 }, { words: 0, lines: 1 }],
      ["ideographic spaces", filled("\u3000"), { words: 0, characters: MAX }, { words: 0 }],
      ["CRLF pairs", filled("\r\n"), { lines: MAX / 2, words: 0 }, { lines: MAX / 2 + 1 }],
      ["lone CRs", filled("\r"), { lines: MAX }, { lines: 1 }],
      ["emoji (surrogate pairs)", filled("😀"), { characters: MAX / 2, words: 0 }, { characters: MAX / 2, words: 1 }],
      ["lone high surrogates", filled("\ud800"), { characters: MAX, words: 0 }, { characters: MAX }],
      ["a letter under combining marks", filled("a\u0301\u0301\u0301"), { words: 1, characters: MAX }, { words: 1 }],
      ["decimals", filled("3.14"), { sentences: 1, words: 1 }, { sentences: MAX / 4 }],
      ["one long word", filled("x"), { words: 1, sentences: 1 }, { words: 1, sentences: 0 }],
    ];

  it.each(cases)("counts %s", (_name, text, std, community) => {
    expect(text.length).toBe(MAX);
    const stats = measureText(text, 200);
    expect(stats).toMatchObject(std);
    expect(stats.characters).toBe([...text].length);
    expect(measurePlainly(text, 200)).toMatchObject(community);
  });

  it("stays consistent on generated repetitive texts", () => {
    // Few runs, each a full-size text: a pattern of 1-8 tricky pieces repeated to the maximum.
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength: 8 }), (pieces) => {
        const text = filled(pieces.join(""));
        const stats = measureText(text, 200);
        const plain = measurePlainly(text, 200);
        expect(stats.characters).toBe(plain.characters);
        expect(stats.words).toBeLessThanOrEqual(plain.words);
        expect(stats.sentences).toBeLessThanOrEqual(Math.ceil(text.length / 2));
        expect(stats.lines).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 12 },
    );
  });
});
