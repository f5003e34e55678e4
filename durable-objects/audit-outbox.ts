/**
 * AuditOutboxObject: where an audit message goes when the queue refused it (src/audit/outbox.ts).
 * It keeps the message and sends it again by alarm until the queue takes it, so an execution
 * that answered its caller always ends up with exactly one audit record (the consumer writes
 * one record per execution whatever it receives twice).
 */
import { DurableObject } from "cloudflare:workers";
import type { AuditMessage } from "../src/audit/messages.ts";
import { sendAudit } from "../src/audit/outbox.ts";

const RETRY_MS = 5_000;

export class AuditOutboxObject extends DurableObject<Env> {
  /** Stores the message durably, then tries it once more in the background. */
  async keep(message: AuditMessage): Promise<void> {
    const key = `m:${Date.now().toString(36)}:${crypto.randomUUID()}`;
    this.ctx.storage.kv.put(key, message);
    await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
  }

  async alarm(): Promise<void> {
    let left = 0;
    for (const [key, message] of this.ctx.storage.kv.list<AuditMessage>({ prefix: "m:", limit: 100 })) {
      if ((await sendAudit(this.env, message)) === "sent") this.ctx.storage.kv.delete(key);
      else left++;
    }
    if (left > 0 || [...this.ctx.storage.kv.list({ prefix: "m:", limit: 1 })].length > 0)
      await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
  }

  /** Messages still waiting (operators; tests). */
  async waiting(): Promise<number> {
    return [...this.ctx.storage.kv.list({ prefix: "m:" })].length;
  }
}
