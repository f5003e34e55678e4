/**
 * Bench-only: an MCP client written the way an agent developer would with
 * @modelcontextprotocol/client: connect once, then one `tools/call` per echo. It drives the
 * MCP peer (bench/workers/mcp-peer) and the runtime's own /mcp face. Runs under Node 22 type
 * stripping (bench/run.ts imports it as it is).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export interface McpEchoClient {
  /** Calls the peer's `echo` tool; resolves with its structured content (or parsed JSON text). */
  echo(input: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

export interface ConnectMcpOptions {
  /**
   * Protocol era. "modern" (default) probes with `server/discover` at connect and then speaks
   * MCP 2026-07-28: no handshake, every call is one self-describing POST. "legacy" is the SDK
   * client's own default, the 2025 `initialize` handshake; the peer answers it from its
   * stateless legacy lane. Either way a call is one HTTP POST.
   */
  era?: "modern" | "legacy";
  /** Headers on every request (the runtime's /mcp needs `authorization`). */
  headers?: Record<string, string>;
  /** The tool to call (default `echo`, the peer's). */
  tool?: string;
  /** `_meta` of every call (the runtime reads `io.tool-runtime/limits` there). */
  meta?: Record<string, unknown>;
}

export async function connectMcp(url: string, options: ConnectMcpOptions = {}): Promise<McpEchoClient> {
  const client = new Client(
    { name: "tool-bench", version: "1.0.0" },
    { versionNegotiation: { mode: options.era === "legacy" ? "legacy" : "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      options.headers ? { requestInit: { headers: options.headers } } : undefined,
    ),
  );
  const tool = options.tool ?? "echo";

  return {
    async echo(input) {
      const result = await client.callTool({
        name: tool,
        arguments: input,
        ...(options.meta ? { _meta: options.meta } : {}),
      });
      if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
      if (result.structuredContent !== undefined) return result.structuredContent;
      const text = result.content.find((block) => block.type === "text");
      if (text === undefined || text.type !== "text") throw new Error("echo returned no structured content or text");
      return JSON.parse(text.text);
    },
    close() {
      return client.close();
    },
  };
}
