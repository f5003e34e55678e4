/**
 * `trt completion bash|zsh|fish`: completion scripts written from spec.ts (commands,
 * subcommands, each command's flags, the values of flags that have a fixed set). zsh runs the
 * bash script through its bashcompinit, so the two shells complete alike.
 */
import {
  COMMAND_SPECS,
  FLAGS,
  GLOBAL_FLAGS,
  subcommandsOf,
  TOP_LEVEL,
  type CommandSpec,
  type FlagName,
} from "./spec.ts";

const flagWords = (names: readonly FlagName[]) => names.map((n) => `--${n}`);
const valued = (Object.keys(FLAGS) as FlagName[]).filter((n) => FLAGS[n].type === "string");
const shortValued = valued.flatMap((n) => {
  const f = FLAGS[n];
  return "short" in f ? [`-${f.short}`] : [];
});
const leafOf = (c: CommandSpec) => c.name.split(" ");

export function bashCompletion(): string {
  const globals = [...flagWords(GLOBAL_FLAGS), "-h", "-o", "-V", "--version"];
  const cases: string[] = [];
  for (const top of TOP_LEVEL) {
    const subs = subcommandsOf(top);
    if (subs.length > 0) {
      const inner = subs
        .map((c) => `        ${leafOf(c)[1]}) words="${[...flagWords(c.flags), ...globals].join(" ")}" ;;`)
        .join("\n");
      cases.push(
        `    ${top})\n      case "$sub" in\n        "") words="${subs.map((c) => leafOf(c)[1]).join(" ")}" ;;\n${inner}\n      esac ;;`,
      );
    } else {
      const c = COMMAND_SPECS.find((s) => s.name === top)!;
      const first = top === "help" ? TOP_LEVEL : (c.argChoices ?? []);
      const words = [...new Set([...flagWords(c.flags), ...globals])].join(" ");
      // A fixed first argument (a shell's name, a command to explain) is offered alone until one is given.
      const fixed = first.length ? `; [[ -z $sub && $cur != -* ]] && words="${first.join(" ")}"` : "";
      cases.push(`    ${top}) words="${words}"${fixed} ;;`);
    }
  }
  const choices = (Object.keys(FLAGS) as FlagName[]).flatMap((n) => {
    const f = FLAGS[n];
    if (!("choices" in f)) return [];
    return [
      `    --${n}${"short" in f ? `|-${f.short}` : ""}) COMPREPLY=($(compgen -W "${f.choices.join(" ")}" -- "$cur")); return ;;`,
    ];
  });
  return `# trt completion for bash; load it with: source <(trt completion bash)
_trt() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd="" sub="" i w words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${[...valued.map((n) => `--${n}`), ...shortValued].join("|")}) ((i++)) ;;
      -*) ;;
      *) if [[ -z $cmd ]]; then cmd=$w; elif [[ -z $sub ]]; then sub=$w; fi ;;
    esac
  done
  case "$prev" in
${choices.join("\n")}
    --key-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    ${[...valued.filter((n) => !("choices" in FLAGS[n]) && n !== "key-file").map((n) => `--${n}`), ...shortValued.filter((s) => s !== "-o")].join("|") || "--none"}) return ;;
  esac
  case "$cmd" in
    "") words="${[...TOP_LEVEL, ...globals].join(" ")}" ;;
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _trt trt
`;
}

export function zshCompletion(): string {
  return `#compdef trt
# trt completion for zsh; load it with: source <(trt completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion().split("\n").slice(1).join("\n")}`;
}

export function fishCompletion(): string {
  const q = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const flagLine = (n: FlagName, cond?: string) => {
    const f = FLAGS[n];
    const parts = ["complete -c trt", cond ? `-n ${q(cond)}` : "", "short" in f ? `-s ${f.short}` : "", `-l ${n}`];
    if (f.type === "string")
      parts.push("choices" in f ? `-x -a ${q(f.choices.join(" "))}` : n === "key-file" ? "-r -F" : "-x");
    parts.push(`-d ${q(f.help)}`);
    return parts.filter(Boolean).join(" ");
  };
  const lines = [
    "# trt completion for fish; save it as ~/.config/fish/completions/trt.fish",
    "complete -c trt -f",
    'complete -c trt -s V -d "trt\'s version"',
    "complete -c trt -n '__fish_use_subcommand' -l version -d \"trt's version\"",
  ];
  for (const n of GLOBAL_FLAGS) lines.push(flagLine(n));
  for (const top of TOP_LEVEL) {
    const subs = subcommandsOf(top);
    const summary = subs.length
      ? subs.map((c) => leafOf(c)[1]).join(", ")
      : COMMAND_SPECS.find((c) => c.name === top)!.summary;
    lines.push(`complete -c trt -n '__fish_use_subcommand' -a ${top} -d ${q(summary)}`);
    for (const c of subs) {
      const [, sub] = leafOf(c);
      lines.push(
        `complete -c trt -n ${q(`__fish_seen_subcommand_from ${top}; and not __fish_seen_subcommand_from ${subs.map((s) => leafOf(s)[1]).join(" ")}`)} -a ${sub} -d ${q(c.summary)}`,
      );
      for (const n of c.flags)
        lines.push(flagLine(n, `__fish_seen_subcommand_from ${top}; and __fish_seen_subcommand_from ${sub}`));
    }
    const c = COMMAND_SPECS.find((s) => s.name === top);
    if (c && !subs.length) {
      for (const n of c.flags) lines.push(flagLine(n, `__fish_seen_subcommand_from ${top}`));
      const words = top === "help" ? TOP_LEVEL : c.argChoices;
      if (words) lines.push(`complete -c trt -n ${q(`__fish_seen_subcommand_from ${top}`)} -a ${q(words.join(" "))}`);
    }
  }
  return lines.join("\n") + "\n";
}

export function completionScript(shell: string): string {
  if (shell === "bash") return bashCompletion();
  if (shell === "zsh") return zshCompletion();
  return fishCompletion();
}
