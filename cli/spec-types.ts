/** The shapes of the command table (spec.ts): a flag, and a command over the flag names it may take. */
export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  /** The value's placeholder in help texts. */
  value?: string;
  /** May be given more than once (a list). */
  multiple?: boolean;
  /** Words a shell may complete the value with. */
  choices?: readonly string[];
  help: string;
}

export interface CommandSpecOf<Flag extends string> {
  /** The words that name it: "call", "keys create". */
  name: string;
  /** Its positional arguments, as the usage line shows them. */
  args: string;
  min: number;
  max: number;
  /** Words a shell may complete its first argument with. */
  argChoices?: readonly string[];
  summary: string;
  flags: readonly Flag[];
  /** More lines for its own --help. */
  more?: string;
}
