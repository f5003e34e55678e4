/** `trt --help`, `trt help COMMAND` and `trt COMMAND --help`, written from spec.ts. */
import { UsageError } from "./exit-codes.ts";
import {
  COMMAND_SPECS,
  EXIT_CODES_TEXT,
  FLAGS,
  GLOBAL_FLAGS,
  specOf,
  subcommandsOf,
  type CommandSpec,
  type FlagName,
} from "./spec.ts";

const synopsis = (c: CommandSpec) => `${c.name}${c.args ? ` ${c.args}` : ""}`;

function columns(rows: [string, string][], indent = "  "): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`).join("\n");
}

function flagRows(names: readonly FlagName[]): [string, string][] {
  return names.map((name) => {
    const f = FLAGS[name];
    const short = "short" in f ? `-${f.short}, ` : "";
    const value = "value" in f ? ` ${f.value}` : "";
    return [`${short}--${name}${value}`, f.help];
  });
}

export function generalUsage(): string {
  return `usage: trt <command> [arguments] [options]

commands:
${columns(COMMAND_SPECS.map((c) => [synopsis(c), c.summary]))}

options of every command:
${columns([...flagRows(GLOBAL_FLAGS.filter((f) => f !== "help")), ["-h, --help", "usage (trt COMMAND --help: that command's)"], ["-V, --version", "trt's version (before a command; after `call`, --version V is the tool's)"]])}

The key comes from --profile's profile, else $TRT_KEY (or $TRT_API_KEY), else the default
profile of ${"$TRT_CONFIG"} or ~/.config/trt/config.json (trt profile --help). See docs/trt.md.
Ctrl-C during \`trt call\` cancels the execution; during \`trt watch\` it only stops watching.
${EXIT_CODES_TEXT}.
`;
}

/** The usage of a command, or of a group (keys, upstreams, profile, admin) with its subcommands. */
export function commandUsage(words: string[]): string {
  const name = words.join(" ");
  const spec = specOf(name);
  if (!spec) {
    const subs = subcommandsOf(words[0]);
    if (subs.length === 0 || words.length > 1)
      throw new UsageError(`no help for "${name}": trt --help lists the commands`);
    return `usage: trt ${words[0]} <command> [arguments] [options]\n\n${columns(subs.map((c) => [synopsis(c), c.summary]))}\n\ntrt ${words[0]} COMMAND --help shows one.\n`;
  }
  const own = spec.flags.length ? `\noptions:\n${columns(flagRows(spec.flags))}\n` : "";
  const more = spec.more ? `\n${spec.more}\n` : "";
  return `usage: trt ${synopsis(spec)}${spec.flags.length ? " [options]" : ""}\n\n${spec.summary}.\n${more}${own}\noptions of every command: --url, --key, --profile, -o/--output table|json, --json, -h/--help (trt --help)\n`;
}
