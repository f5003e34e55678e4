/** Component schemas of tool bundles (docs/contract.md#bundles; src/registry/bundles.ts). */
import { bool, nullable, object, oneOfStrings, ref, str, time } from "./schema-builders.ts";
import { TAG } from "./schemas-tools.ts";

const NAME = {
  type: "string",
  pattern: "^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$",
  description: "A slug of 1 to 64 characters: the path segment of /mcp/{name}",
};
const selectors = (what: string) => ({
  type: "array",
  maxItems: 200,
  items: { type: "string", minLength: 1, maxLength: 128, pattern: "^\\S+$" },
  description: what,
});
const TOOLS = selectors("Tools by exact name");
const PREFIXES = selectors('Tools whose name starts with one of these ("text.")');
const CHANNELS = selectors("Tools that one of these providers offers (in any version)");
const TAGS = {
  type: "array",
  maxItems: 200,
  items: TAG,
  description: "Tools whose manifest carries one of these tags (in any version's offering)",
};
const DISCOVERY = {
  ...oneOfStrings(["list", "search"]),
  description:
    "How /mcp/{name} offers the tools: list them all, or list only search_tools (find them by words) and call_tool (call one by name)",
};

export const BundleRequest = object(
  {
    name: { ...NAME, description: "The path's name, if repeated; it may not differ" },
    description: { ...nullable(str), maxLength: 1000 },
    tools: TOOLS,
    prefixes: PREFIXES,
    channels: CHANNELS,
    tags: TAGS,
    discovery: { ...DISCOVERY, default: "list" },
  },
  [],
  "A tool is in the bundle when any selector matches it; at least one selector is needed. A tool that the caller's own channels and capabilities hide stays hidden.",
);

export const Bundle = object({
  name: NAME,
  description: nullable(str),
  tools: TOOLS,
  prefixes: PREFIXES,
  channels: CHANNELS,
  tags: TAGS,
  discovery: DISCOVERY,
  updated_at: time,
});

export const BundleList = object({ bundles: { type: "array", items: ref("Bundle") } });

export const BundleDeleted = object({ name: str, deleted: { ...bool, const: true } });
