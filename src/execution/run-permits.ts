/**
 * A run's provider permits (docs/contract.md#waiting): a retry's permit, taken without waiting,
 * and when a permit goes back — once its provider call has really returned, not when the run ends.
 */
import type { ExecutionPlan } from "./execution-plan.ts";
import { acquirePermit, type Permit } from "./provider-claim.ts";

/**
 * The longest a tenant's slot stays held for a provider call after its execution has ended:
 * a handler that ignores its timeout (or one called without a relay, src/execution/provider-relay.ts)
 * still counts against its tenant until then. The platform ends any invocation that exceeds
 * its CPU limit (providers declare `limits.cpu_ms`).
 */
export const WORK_CAP_MS = 60_000;

/** A retry's permit, taken without waiting (the run is already running); undefined: full. */
export async function retryPermit(
  env: Env,
  plan: ExecutionPlan,
  provider: ExecutionPlan["providers"][number],
  n: number,
): Promise<Permit | null | undefined> {
  try {
    const got = await acquirePermit(env, provider, {
      execution_id: plan.execution_id,
      tenant: plan.tenant,
      permit_id: `${plan.execution_id}:${n}`,
      timeout_ms: plan.timeout_ms,
      wait: false,
    });
    return got.ok ? got.permit : undefined;
  } catch (err) {
    console.warn(
      JSON.stringify({
        msg: "provider gate unreachable; no retry there",
        provider: provider.provider,
        error: String(err),
      }),
    );
    return undefined;
  }
}

/** A permit goes back when its provider call has really returned (WORK_CAP_MS after the end at most), or at once when none was made. */
export function releaseWhenReturned(
  permit: Permit,
  calls: Promise<unknown>[],
  done: Promise<unknown>,
  background: (p: Promise<unknown>) => void,
): void {
  if (calls.length === 0) return permit.release();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let returned = false;
  const all = Promise.allSettled(calls).then(() => void (returned = true));
  const cap = done.then(() =>
    returned ? undefined : new Promise<void>((resolve) => (timer = setTimeout(resolve, WORK_CAP_MS))),
  );
  background(
    Promise.race([all, cap]).then(() => {
      if (timer !== undefined) clearTimeout(timer);
      permit.release();
    }),
  );
}
