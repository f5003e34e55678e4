/** Loopback ports the OS picks, for the stacks and the tests' own servers. */
import { createServer } from "node:net";

/** A loopback port free right now (the OS picks it; the caller binds it soon after). */
export async function freePort(): Promise<number> {
  const { port, release } = await reservePort();
  await release();
  return port;
}

/**
 * A loopback port held until `release()`: for a process started later (the test stacks start
 * as the unit files end, test/boot-gate.ts), since a port merely free when it was picked can
 * be taken meanwhile — the production-mode stack once failed to start on "Address already in
 * use" a minute after its port was picked.
 */
export function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      let released: Promise<void> | undefined;
      const release = () => (released ??= new Promise<void>((done) => server.close(() => done())));
      resolve({ port, release });
    });
  });
}
