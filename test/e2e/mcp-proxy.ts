/**
 * A loopback proxy that adds a bearer credential to every request and forwards it to the
 * stack, streaming both ways. The official MCP conformance suite sends no credential, and the
 * runtime has no anonymous mode: the suite talks to this proxy instead (test-only).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Readable } from "node:stream";

const HOP_HEADERS = new Set(["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"]);

export interface CredentialProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * `rewrite`, when given, may change a request's body on its way (what the suite sends is
 * graded from its side: its wire-schema check reads the messages before the proxy).
 */
export async function startCredentialProxy(
  target: string,
  credential: string,
  rewrite?: (body: Buffer) => Buffer,
): Promise<CredentialProxy> {
  const server: Server = createServer(async (req, res) => {
    try {
      const read = req.method === "GET" || req.method === "HEAD" ? undefined : await readAll(req);
      const body = read && rewrite ? rewrite(read) : read;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || name === "host" || name === "connection" || name === "content-length") continue;
        headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      headers.set("authorization", `Bearer ${credential}`);
      const controller = new AbortController();
      res.on("close", () => controller.abort());
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: body && new Uint8Array(body),
        signal: controller.signal,
      });
      // fetch has already decoded the body: its length and encoding headers no longer hold.
      const answer: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!HOP_HEADERS.has(name)) answer[name] = value;
      });
      res.writeHead(upstream.status, answer);
      if (upstream.body)
        Readable.fromWeb(upstream.body as never)
          .on("error", () => res.destroy())
          .pipe(res);
      else res.end();
    } catch {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
