/**
 * What a tool bundle is (docs/contract.md#bundles), apart from its rules (src/registry/bundles.ts):
 * the registry's snapshot carries bundles (src/registry/catalog.ts), and the rules read the
 * snapshot, so the shape lives here to keep the two from importing each other.
 */
export interface Bundle {
  name: string;
  description: string | null;
  tools: string[];
  prefixes: string[];
  channels: string[];
  /** Tags of the tools' manifests (providers/sdk/protocol.ts TOOL_TAG); the registry reads a bundle stored before the field with none. */
  tags: string[];
  /**
   * How `/mcp/{bundle}` offers the tools: "list" lists them all; "search" lists only
   * `search_tools` and `call_tool` (src/mcp/discovery.ts). The registry reads a bundle stored
   * before the field as "list".
   */
  discovery: Discovery;
  updated_at: string;
}

export type Discovery = "list" | "search";
