/**
 * Gates a test controls: `lab.hold` runs until `lab.release` names its latch (providers/lab),
 * so a test decides when a running call ends instead of racing a timer. Releases go through
 * the file's own caller, never the held tenant's key: a tenant whose slots the holds fill could
 * not run the release.
 */
import { expect } from "vitest";
import { call, ROOMY } from "./http.ts";

/** A fresh latch name. */
export const newLatch = () => `latch-${crypto.randomUUID()}`;

/** `lab.hold` on `latch`: ignores cancellation unless `heed_cancel`; gives up after `max_ms` (60 s by default). */
export const hold = (latch: string, extra: Record<string, unknown> = {}) => ({
  tool: "lab.hold",
  input: { latch, ...extra },
});

/**
 * Lets every `lab.hold` on `latch` return; with `afterStop`, only once one of them has had its
 * stop notice (a cancel sent before has reached the handler).
 */
export async function release(latch: string, options: { afterStop?: boolean } = {}): Promise<void> {
  const input = { latch, ...(options.afterStop ? { after_stop: true } : {}) };
  const res = await call("POST", "/v1/executions", { tool: "lab.release", input, limits: ROOMY });
  expect(res.body.output).toEqual({ released: latch });
}
