/**
 * An HTTP server on the one loopback port the e2e stack lets http.request reach (EGRESS_ALLOW,
 * set by global-setup for this stack only). Files run one after another, so each file that
 * needs it starts its own in `beforeAll` and closes it in `afterAll`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { provided } from "./stack.ts";

export const egressPort = provided("egressPort");
export const egressOrigin = `http://127.0.0.1:${egressPort}`;

export interface Loopback {
  close(): Promise<void>;
}

export async function startLoopback(
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<Loopback> {
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    handle(req, body, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(egressPort, "127.0.0.1", resolve);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
