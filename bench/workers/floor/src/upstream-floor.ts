/**
 * Bench-only: the floor of a call to an upstream MCP server through a Worker (the row
 * "F0 → upstream"). The floor Worker takes the same JSON input as a runtime call, sends the
 * example upstream's `echo` one stateless 2026-07-28 `tools/call` over its service binding (the
 * `_meta` envelope, the `Mcp-Method`/`Mcp-Name` headers), reads the answer (an event stream or
 * JSON) and returns the tool's structured content. That is what the runtime's upstream path
 * must do at the least, so the runtime's row beside it shows what the runtime adds, and this
 * row beside "upstream direct (MCP)" what one Worker and one binding hop in front of it cost.
 */

const MODERN_VERSION = "2026-07-28";
const ID = 1;

/** The request the runtime's client sends for one `tools/call` (src/upstreams/client.ts), no more. */
function toolsCall(tool: string, args: unknown): RequestInit {
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ID,
      method: "tools/call",
      params: {
        name: tool,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
          "io.modelcontextprotocol/clientInfo": { name: "tool-bench-floor", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  };
}

interface Answer {
  id?: unknown;
  result?: { structuredContent?: unknown; isError?: unknown };
  error?: unknown;
}

/** The answer to the request in the `data:` lines of event-stream text, if it is there yet. */
function answerInEvents(text: string): Answer | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "") continue;
    const message = JSON.parse(data) as Answer;
    if (message.id === ID) return message;
  }
  return undefined;
}

/**
 * The answer to the request: an `application/json` body whole, an event stream only up to the
 * event that holds it (then let go), as the runtime's client and the SDK's client read it: the
 * server may close its stream later than it answers.
 */
async function readAnswer(res: Response): Promise<Answer | undefined> {
  if ((res.headers.get("content-type") ?? "").startsWith("application/json")) return (await res.json()) as Answer;
  if (!res.body) return undefined;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      text += decoder.decode(value, { stream: true });
      // Only whole events (ended by a blank line) are read.
      const whole = text.lastIndexOf("\n\n");
      const answer = whole < 0 ? undefined : answerInEvents(text.slice(0, whole));
      if (answer) return answer;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

export async function upstreamFloor(binding: Fetcher, input: unknown): Promise<Response> {
  const res = await binding.fetch("https://upstream.invalid/mcp", toolsCall("echo", input));
  if (!res.ok) {
    await res.body?.cancel();
    return Response.json({ error: `upstream HTTP ${res.status}` }, { status: 502 });
  }
  const answer = await readAnswer(res);
  if (!answer?.result || answer.result.isError === true)
    return Response.json({ error: answer?.error ?? "no result" }, { status: 502 });
  return Response.json({ output: answer.result.structuredContent ?? null });
}
