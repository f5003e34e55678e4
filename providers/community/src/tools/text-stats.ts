/**
 * The community provider's `text.stats`: the same contract as std's (the schemas are
 * imported, not copied, so they cannot drift), with a plainer reading of "word" and
 * "sentence". Two providers of one tool let the runtime's ranking choose between them.
 */
import { defineTool } from "../../../sdk/define.ts";
import {
  isWhitespace,
  textStatsInput,
  textStatsOutput,
  type TextStats,
  type TextStatsInput,
} from "../../../std/src/tools/text-stats.ts";

/**
 * One pass, constant work per code point (linear on any text the schema admits, so no input can hold its Worker's CPU):
 * words are runs of non-whitespace, lines are "\n"-separated pieces, sentences are runs of
 * . ! ? (each run counts once), characters are code points.
 */
export function measurePlainly(text: string, wordsPerMinute: number): TextStats {
  let characters = 0;
  let words = 0;
  let newlines = 0;
  let sentences = 0;
  let inWord = false;
  let inRun = false;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate pair is one code point; its low half is skipped (neither half is a space).
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i++;
    }
    characters++;
    if (unit === 0x0a) newlines++;
    const space = isWhitespace(unit);
    if (!space && !inWord) words++;
    inWord = !space;
    const terminal = unit === 0x2e || unit === 0x21 || unit === 0x3f;
    if (terminal && !inRun) sentences++;
    inRun = terminal;
  }
  return {
    characters,
    words,
    lines: text === "" ? 0 : newlines + 1,
    sentences,
    reading_time_seconds: Math.round((words / wordsPerMinute) * 60),
  };
}

export const textStats = defineTool<TextStatsInput, TextStats>({
  name: "text.stats",
  version: "1.0.0",
  description: "Counts characters, words (whitespace-separated), lines and sentences, and estimates reading time.",
  input: textStatsInput,
  output: textStatsOutput,
  capability_required: null,
  idempotent: true,
  // Up to 1,000,000 characters in one pass: not "instant" (100 ms) on every machine.
  latency_class: "fast",
  effects: "read",
  tags: ["text"],
  coercion: "lenient",
  handler: ({ text, words_per_minute = 200 }) => measurePlainly(text, words_per_minute),
});
