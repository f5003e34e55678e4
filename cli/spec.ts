/**
 * What `trt` accepts, as data: every command, its arguments and its flags. The parser
 * (args.ts), the help texts (help.ts) and the shell completions (completion.ts) all read
 * this one table, so they cannot disagree. `trt bundles` is in spec-bundles.ts, spread in here.
 */
import { BUNDLE_COMMANDS, BUNDLE_FLAGS } from "./spec-bundles.ts";
import type { CommandSpecOf, FlagSpec } from "./spec-types.ts";

export type { FlagSpec };

export const FLAGS = {
  url: {
    type: "string",
    value: "URL",
    help: "the runtime (default: the profile's, else $TRT_URL, else http://127.0.0.1:8787)",
  },
  key: { type: "string", value: "KEY", help: "the API key; prefer $TRT_KEY or a profile: argv shows in process lists" },
  profile: {
    type: "string",
    value: "NAME",
    help: "a profile from the config file (default $TRT_PROFILE, else the file's default)",
  },
  output: {
    type: "string",
    short: "o",
    value: "FORMAT",
    choices: ["table", "json"],
    help: "table (for people, the default) or json (one document; events one per line)",
  },
  json: { type: "boolean", help: "the same as --output json" },
  help: { type: "boolean", short: "h", help: "this command's usage" },
  async: { type: "boolean", help: "return the execution id at once" },
  stream: { type: "boolean", help: "print every event as it comes" },
  version: {
    type: "string",
    value: "V",
    help: "the tool's version (only after `call`; before a command --version is trt's)",
  },
  "tool-version": { type: "string", value: "V", help: "the tool's version (the same as call's --version)" },
  provider: { type: "string", value: "P", help: "ask for this provider" },
  timeout: { type: "string", value: "MS", help: "the call's time budget in milliseconds" },
  grace: { type: "string", value: "MS", help: "how long the tool may take to stop" },
  status: { type: "string", value: "S", help: "only executions with this status" },
  tool: { type: "string", value: "T", help: "only calls of this tool" },
  project: { type: "string", value: "P", help: "only calls of this project" },
  since: { type: "string", value: "TIME", help: "accepted at or after this ISO 8601 time" },
  until: { type: "string", value: "TIME", help: "accepted before this ISO 8601 time" },
  limit: { type: "string", value: "N", help: "at most N rows (a page)" },
  cursor: { type: "string", value: "C", help: "the next page, as the previous one named it" },
  from: { type: "string", value: "DAY", help: "the first UTC day, YYYY-MM-DD" },
  to: { type: "string", value: "DAY", help: "the last UTC day, YYYY-MM-DD (inclusive)" },
  reason: { type: "string", value: "TEXT", help: "why (kept in the audit record)" },
  tenant: { type: "string", value: "T", help: "the tenant" },
  agent: { type: "string", value: "A", help: "the agent" },
  capability: {
    type: "string",
    value: "C",
    multiple: true,
    help: "a capability the key holds (repeat for more; none by default)",
  },
  channel: {
    type: "string",
    value: "P",
    multiple: true,
    help: "a provider the key may reach, * for all (repeat for more; none by default)",
  },
  role: {
    type: "string",
    value: "R",
    choices: ["agent", "tenant_admin", "approver", "admin"],
    help: "agent (default: its own executions only), tenant_admin, approver or admin (docs/roles.md)",
  },
  hash: { type: "string", value: "H", help: "the new definition's hash, as `upstreams show` lists it" },
  "key-env": { type: "string", value: "VAR", help: "the key comes from this environment variable" },
  "key-file": { type: "string", value: "PATH", help: "the key comes from this file (readable by you only)" },
  "secret-store": {
    type: "boolean",
    help: "keep the key in the OS secret store (secret-tool or macOS security); it is read from standard input",
  },
  default: { type: "boolean", help: "make it the default profile" },
  ...BUNDLE_FLAGS,
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

/** Flags every command takes. */
export const GLOBAL_FLAGS: readonly FlagName[] = ["url", "key", "profile", "output", "json", "help"];

export type CommandSpec = CommandSpecOf<FlagName>;

const LIST = ["limit", "cursor"] as const;

export const COMMAND_SPECS: readonly CommandSpec[] = [
  { name: "tools", args: "[NAME]", min: 0, max: 1, summary: "list the tools, or describe one", flags: [] },
  {
    name: "call",
    args: "TOOL [JSON | @file | -]",
    min: 1,
    max: 2,
    summary: "run a tool and wait for its result (progress on stderr)",
    flags: ["async", "stream", "version", "tool-version", "provider", "timeout"],
    more: [
      "The input is inline JSON, @file or - for standard input ({} when left out).",
      "After `call`, --version V is the tool's version (--tool-version V says the same); -V is trt's.",
      "Ctrl-C cancels the execution (a second Ctrl-C leaves it running).",
    ].join("\n"),
  },
  { name: "get", args: "ID", min: 1, max: 1, summary: "an execution's status and result", flags: [] },
  {
    name: "watch",
    args: "ID",
    min: 1,
    max: 1,
    summary: "follow an execution's events to its end (resumes after drops)",
    flags: [],
    more: "Ctrl-C stops watching; the execution goes on. --output json prints one event per line.",
  },
  { name: "cancel", args: "ID", min: 1, max: 1, summary: "cancel an execution", flags: ["grace"] },
  {
    name: "ls",
    args: "",
    min: 0,
    max: 0,
    summary: "your executions, newest first",
    flags: ["status", "tool", "since", "until", ...LIST],
  },
  {
    name: "approvals",
    args: "",
    min: 0,
    max: 0,
    summary: "calls of your tenant awaiting approval (approver role)",
    flags: [],
  },
  {
    name: "approve",
    args: "ID",
    min: 1,
    max: 1,
    summary: "let a call awaiting approval run (approver role)",
    flags: ["reason"],
  },
  {
    name: "reject",
    args: "ID",
    min: 1,
    max: 1,
    summary: "refuse it: it ends failed, never run (approver role; --reason required)",
    flags: ["reason"],
  },
  {
    name: "keys list",
    args: "",
    min: 0,
    max: 0,
    summary: "API keys (operators), of one tenant with --tenant",
    flags: ["tenant"],
  },
  {
    name: "keys create",
    args: "",
    min: 0,
    max: 0,
    summary: "mint an API key (operators); the key is printed once",
    flags: ["tenant", "agent", "capability", "channel", "role"],
    more: "--tenant and --agent are required. The key goes to standard output, the rest to stderr.",
  },
  { name: "keys revoke", args: "KEY_ID", min: 1, max: 1, summary: "revoke an API key (operators)", flags: [] },
  {
    name: "audit",
    args: "",
    min: 0,
    max: 0,
    summary: "the audit log, every tenant's (operators), newest first",
    flags: ["tenant", "tool", "status", "project", "since", "until", ...LIST],
  },
  {
    name: "usage",
    args: "",
    min: 0,
    max: 0,
    summary: "a tenant's use by day and tool, with a cost estimate (tenant admins, operators)",
    flags: ["from", "to", "tenant", "tool"],
    more: "Default: the last seven days. Only what the audit store still holds is counted.",
  },
  { name: "upstreams list", args: "", min: 0, max: 0, summary: "upstream MCP servers (operators)", flags: [] },
  {
    name: "upstreams show",
    args: "NAME",
    min: 1,
    max: 1,
    summary: "one upstream: its tools, pins and changes awaiting approval",
    flags: [],
  },
  {
    name: "upstreams add",
    args: "JSON | @file | -",
    min: 1,
    max: 1,
    summary: "register an upstream (its registration as JSON, see docs/trt.md)",
    flags: [],
  },
  {
    name: "upstreams remove",
    args: "NAME",
    min: 1,
    max: 1,
    summary: "remove an upstream registered through the admin API",
    flags: [],
  },
  { name: "upstreams refresh", args: "NAME", min: 1, max: 1, summary: "list an upstream's tools again now", flags: [] },
  {
    name: "upstreams approve",
    args: "NAME TOOL",
    min: 2,
    max: 2,
    summary: "approve a tool's changed definition by its hash",
    flags: ["hash"],
    more: "--hash is required: the new_hash that `trt upstreams show NAME` lists.",
  },
  {
    name: "upstreams reject",
    args: "NAME TOOL",
    min: 2,
    max: 2,
    summary:
      "reject a tool's changed definition by its hash: what served before serves on, and that hash is not raised again",
    flags: ["hash", "reason"],
    more: "--hash is required: the new_hash that `trt upstreams show NAME` lists. --reason is kept with the rejection.",
  },
  ...BUNDLE_COMMANDS,
  {
    name: "profile add",
    args: "NAME",
    min: 1,
    max: 1,
    summary: "add or replace a profile: --url and where its key comes from",
    flags: ["key-env", "key-file", "secret-store", "default"],
    more: "The key comes from one of --key-env VAR, --key-file PATH (mode 600) or --secret-store\n(the key read from standard input into secret-tool or the macOS keychain). The profile keeps\nwhere the key is, never the key.",
  },
  { name: "profile list", args: "", min: 0, max: 0, summary: "the profiles in the config file", flags: [] },
  {
    name: "profile show",
    args: "[NAME]",
    min: 0,
    max: 1,
    summary: "a profile (default: the one in use) and where its key comes from",
    flags: [],
  },
  { name: "profile remove", args: "NAME", min: 1, max: 1, summary: "remove a profile", flags: [] },
  {
    name: "admin bootstrap",
    args: "",
    min: 0,
    max: 0,
    summary: "a new deployment's first operator key, once",
    flags: ["tenant", "agent"],
    more: "The token comes from $TRT_BOOTSTRAP_TOKEN or standard input, never the command line.",
  },
  {
    name: "completion",
    args: "bash | zsh | fish",
    min: 1,
    max: 1,
    argChoices: ["bash", "zsh", "fish"],
    summary: "print a shell completion script",
    flags: [],
    more: "e.g. in ~/.bashrc: source <(trt completion bash); zsh: source <(trt completion zsh);\nfish: trt completion fish > ~/.config/fish/completions/trt.fish",
  },
  { name: "help", args: "[COMMAND]", min: 0, max: 2, summary: "trt's usage, or a command's", flags: [] },
];

/** The first words: plain commands and groups (keys, upstreams, bundles, profile, admin). */
export const TOP_LEVEL: readonly string[] = [...new Set(COMMAND_SPECS.map((c) => c.name.split(" ")[0]))];

export function subcommandsOf(group: string): CommandSpec[] {
  return COMMAND_SPECS.filter((c) => c.name.startsWith(`${group} `));
}

export function specOf(name: string): CommandSpec | undefined {
  return COMMAND_SPECS.find((c) => c.name === name);
}

/** The exit codes, for `trt --help`, the README and scripts (EXIT in exit-codes.ts). */
export const EXIT_CODES_TEXT = `exit codes: 0 done · 1 the execution failed, timed out or was cancelled · 2 bad arguments or
input (nothing sent) · 3 the runtime refused the request · 4 the runtime could not be reached ·
130 interrupted`;
