/** `text.stats`: sizes of a text and how long it takes to read. */
import { defineTool } from "../../../sdk/define.ts";

export interface TextStatsInput {
  text: string;
  words_per_minute?: number;
}

export interface TextStats {
  characters: number;
  words: number;
  lines: number;
  sentences: number;
  reading_time_seconds: number;
}

const DEFAULT_WORDS_PER_MINUTE = 200;

/** Shared with the community provider's `text.stats`, so both answer the same contract. */
export const textStatsInput = {
  type: "object",
  properties: {
    text: { type: "string", maxLength: 1_000_000 },
    words_per_minute: { type: "number", minimum: 1, default: DEFAULT_WORDS_PER_MINUTE },
  },
  required: ["text"],
  additionalProperties: false,
} as const;

export const textStatsOutput = {
  type: "object",
  properties: {
    characters: { type: "number", description: "Unicode code points, not UTF-16 units" },
    words: { type: "number" },
    lines: { type: "number" },
    sentences: { type: "number" },
    reading_time_seconds: { type: "number" },
  },
  required: ["characters", "words", "lines", "sentences", "reading_time_seconds"],
  additionalProperties: false,
} as const;

const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LINE_BREAK = /\r\n|\r|\n/g;
// Terminal punctuation followed by a space or the end; "3.14" and "e.g.x" do not end a sentence.
const SENTENCE_END = /[.!?…。！？]+(?=\s|$)/u;

/** A word is a whitespace-separated run holding at least one letter or digit, so "—" is not one. */
function countWords(text: string): number {
  return text.split(/\s+/u).filter((token) => HAS_LETTER_OR_DIGIT.test(token)).length;
}

/** Like `wc -l` plus a final line without its break: "a\nb" and "a\nb\n" both have 2. */
function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.match(LINE_BREAK)?.length ?? 0;
  return /[\r\n]$/.test(text) ? breaks : breaks + 1;
}

function countSentences(text: string): number {
  return text.split(new RegExp(SENTENCE_END, "gu")).filter((part) => HAS_LETTER_OR_DIGIT.test(part)).length;
}

function measureText(text: string, wordsPerMinute: number): TextStats {
  const words = countWords(text);
  return {
    characters: [...text].length,
    words,
    lines: countLines(text),
    sentences: countSentences(text),
    // Whole seconds, rounded up: a one-word text still takes a moment to read.
    reading_time_seconds: Math.ceil((words * 60) / wordsPerMinute),
  };
}

export const textStats = defineTool<TextStatsInput, TextStats>({
  name: "text.stats",
  version: "1.0.0",
  description: "Counts characters (code points), words, lines and sentences, and estimates reading time.",
  input: textStatsInput,
  output: textStatsOutput,
  capability_required: null,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  coercion: "lenient",
  handler: ({ text, words_per_minute }) => measureText(text, words_per_minute ?? DEFAULT_WORDS_PER_MINUTE),
});
