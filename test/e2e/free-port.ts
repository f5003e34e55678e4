/**
 * Loopback ports for the stacks and the tests' own servers, picked below the kernel's range
 * of ephemeral ports (/proc/sys/net/ipv4/ip_local_port_range) where it can be read: a port
 * from that range, free when picked, can be handed to any process that binds port 0 or
 * connects out before the test binds it, and the test stacks start, and the tests listen,
 * a minute or more after the ports are picked (two clean clones failed on "Address already
 * in use": the production-mode stack's port, an upstream's port).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The first port of the ephemeral range; 0 where it cannot be read (then the OS picks). */
function ephemeralStart(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 0;
  } catch {
    return 0;
  }
}

const LOW = 10_000;
const start = ephemeralStart();

function listen(port: number): Promise<ReturnType<typeof createServer> | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/**
 * A loopback port held until `release()`: for a process started later (the test stacks start
 * as the unit files end, test/boot-gate.ts).
 */
export async function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  let server: ReturnType<typeof createServer> | undefined;
  // Random ports below the ephemeral range, a bounded number of tries; then any the OS gives.
  for (let i = 0; i < 50 && !server && start > LOW + 1000; i++)
    server = await listen(LOW + Math.floor(Math.random() * (start - LOW)));
  server ??= await listen(0);
  if (!server) throw new Error("no free loopback port");
  const { port } = server.address() as { port: number };
  let released: Promise<void> | undefined;
  const release = () => (released ??= new Promise<void>((done) => server.close(() => done())));
  return { port, release };
}

/** A loopback port free right now, outside the ephemeral range where it can be (the caller binds it soon after). */
export async function freePort(): Promise<number> {
  const { port, release } = await reservePort();
  await release();
  return port;
}
