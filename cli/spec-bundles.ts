/**
 * `trt bundles …` in the command table (spec.ts spreads these into FLAGS and COMMAND_SPECS, so
 * the parser, the help and the completions read them as they read every other command): a
 * tenant's tool bundles (docs/contract.md#bundles), through `/v1/bundles`.
 */
import type { CommandSpecOf, FlagSpec } from "./spec-types.ts";

/** A selector's values: comma-separated, and the flag may be repeated. */
const selector = (value: string, what: string) =>
  ({ type: "string", value, multiple: true, help: `${what} (comma-separated; repeat for more)` }) as const;

export const BUNDLE_FLAGS = {
  tools: selector("T,…", "tools by exact name"),
  prefixes: selector("P,…", 'tools whose name starts with one of these ("text.")'),
  channels: selector("C,…", "tools that one of these providers offers"),
  tags: selector("TAG,…", "tools whose manifest carries one of these tags"),
  discovery: {
    type: "string",
    value: "MODE",
    choices: ["list", "search"],
    help: "list (the default: /mcp/NAME lists the tools) or search (it lists search_tools and call_tool)",
  },
  description: { type: "string", value: "TEXT", help: "what the bundle is for (at most 1,000 characters)" },
} as const satisfies Record<string, FlagSpec>;

const WHOSE =
  "A tenant admin manages its own tenant's bundles; an operator any tenant's, named with --tenant\n(default: its key's own tenant).";

export const BUNDLE_COMMANDS: readonly CommandSpecOf<keyof typeof BUNDLE_FLAGS | "tenant">[] = [
  {
    name: "bundles list",
    args: "",
    min: 0,
    max: 0,
    summary: "a tenant's tool bundles with their selectors and MCP URL (tenant admins, operators)",
    flags: ["tenant"],
    more: WHOSE,
  },
  { name: "bundles show", args: "NAME", min: 1, max: 1, summary: "one tool bundle", flags: ["tenant"], more: WHOSE },
  {
    name: "bundles put",
    args: "NAME",
    min: 1,
    max: 1,
    summary: "create a tool bundle, or replace it whole, served at /mcp/NAME",
    flags: ["tools", "prefixes", "channels", "tags", "discovery", "description", "tenant"],
    more: `At least one of --tools, --prefixes, --channels, --tags: a tool is in the bundle when any matches it.\nWhat is left out is not kept: put replaces the whole bundle.\n${WHOSE}`,
  },
  {
    name: "bundles remove",
    args: "NAME",
    min: 1,
    max: 1,
    summary: "delete a tool bundle",
    flags: ["tenant"],
    more: WHOSE,
  },
];
