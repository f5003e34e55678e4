/**
 * The community provider's `text.stats`: the same contract as std's (the schemas are
 * imported, not copied, so they cannot drift), with a plainer reading of "word" and
 * "sentence". Two providers of one tool let the runtime's ranking choose between them.
 */
import { defineTool } from "../../../sdk/define.ts";
import { textStatsInput, textStatsOutput, type TextStats, type TextStatsInput } from "../../../std/src/tools/text-stats.ts";

export const textStats = defineTool<TextStatsInput, TextStats>({
  name: "text.stats",
  version: "1.0.0",
  description: "Counts characters, words (whitespace-separated), lines and sentences, and estimates reading time.",
  input: textStatsInput,
  output: textStatsOutput,
  capability_required: null,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  coercion: "lenient",
  handler: ({ text, words_per_minute = 200 }) => {
    const words = text.split(/\s+/).filter(Boolean).length;
    return {
      characters: Array.from(text).length,
      words,
      lines: text === "" ? 0 : text.split("\n").length,
      sentences: (text.match(/[.!?]+/g) ?? []).length,
      reading_time_seconds: Math.round((words / words_per_minute) * 60),
    };
  },
});
