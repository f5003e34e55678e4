/**
 * Rate-limit refusals happen at the edge, where no execution exists to report them. Each
 * isolate counts them and sends the counts to the audit queue at most once a second (or
 * every 100), as one message with a unique id, so that a redelivered message is not counted
 * twice. Counts still waiting when an isolate goes away are lost; the queue holds the rest.
 */

const FLUSH_MS = 1_000;
const FLUSH_AT = 100;

let pending = new Map<string, { tenant: string; tool: string; reason: string; n: number }>();
let total = 0;
let scheduled: Promise<void> | undefined;

export function countRefusal(env: Env, waitUntil: (p: Promise<unknown>) => void, r: { tenant: string; tool: string; reason: string }): void {
  if (!env.AUDIT_QUEUE) return;
  const key = `${r.tenant}\u0000${r.tool}\u0000${r.reason}`;
  const entry = pending.get(key) ?? { ...r, n: 0 };
  entry.n++;
  pending.set(key, entry);
  total++;
  if (total >= FLUSH_AT) {
    waitUntil(flush(env));
    return;
  }
  scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, FLUSH_MS)).then(() => flush(env));
  waitUntil(scheduled);
}

async function flush(env: Env): Promise<void> {
  scheduled = undefined;
  const counts = [...pending.values()];
  pending = new Map();
  total = 0;
  if (counts.length === 0) return;
  try {
    await env.AUDIT_QUEUE!.send({ kind: "refusals", id: crypto.randomUUID(), counts });
  } catch (err) {
    console.warn(JSON.stringify({ msg: "refusal counts lost", error: String(err) }));
  }
}
