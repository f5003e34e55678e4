/**
 * A waiting execution's place in line (docs/contract.md#waiting): the tenant's queue while it is
 * queued, its provider's line while it is scheduled. GET shows the place as last looked at; while
 * someone follows the execution's events, the place is looked at once a second and each change is
 * said in a `log` event. Nobody is told without a subscriber: a look costs a request to the
 * tenant's object or the provider's gate. The execution object keeps one watch and tells it what
 * it waits in.
 */
import { queuePosition } from "../policy/admission.ts";
import { gateStub } from "../object-stubs.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import type { ExecutionRecord } from "./record.ts";

/** While someone watches a waiting execution, its place in line is looked at this often. */
export const POSITION_POLL_MS = 1_000;

/** The statuses that wait in a line (awaiting approval waits for a person, not in line). */
export function inLine(status: ExecutionRecord["status"]): boolean {
  return status === "queued" || status === "scheduled";
}

/**
 * Its place now: in its tenant's queue while queued; while scheduled, in the line of its first
 * provider that limits concurrency (none: no place). Throws when the object asked did not answer.
 */
export async function lookPosition(
  env: Env,
  record: ExecutionRecord,
  plan: ExecutionPlan | undefined,
): Promise<number | undefined> {
  if (record.status === "queued") {
    const p = await queuePosition(env, record.tenant, record.execution_id);
    return p ? p : undefined;
  }
  const limited = plan?.providers.find((c) => c.max_concurrency);
  const p = limited ? await gateStub(env, limited.provider).position(record.execution_id) : null;
  return p ?? undefined;
}

/** What the watch sees of its execution at each look. */
export interface Watched {
  record: ExecutionRecord;
  subscribers: number;
  /** Its run has begun: it waits no more. */
  running: boolean;
}

/** Looking goes on while someone follows an execution that still waits in line. */
export function keepWatching(now: Watched | undefined): now is Watched {
  return now !== undefined && now.subscribers > 0 && inLine(now.record.status) && !now.running;
}

/** A place looked at is said when it is known, differs from the one last said, and the wait it was looked at in goes on. */
export function worthTelling(
  looked: number | undefined,
  told: number | undefined,
  before: Watched,
  after: Watched | undefined,
): looked is number {
  return looked !== undefined && looked !== told && after?.record.status === before.record.status && !after.running;
}

export interface PositionWatchHost {
  /** The execution as it is now (undefined: no record). */
  watched(): Watched | undefined;
  /** Looks at its place (lookPosition in the object); throws when nobody answered. */
  look(record: ExecutionRecord): Promise<number | undefined>;
  /** Says a change of place on the execution's event stream. */
  tell(status: ExecutionRecord["status"], position: number): void;
}

type Schedule = (tick: () => void, ms: number) => void;

export class PositionWatch {
  readonly #host: PositionWatchHost;
  readonly #schedule: Schedule;
  /** Its place in the line it waits in, as last seen. */
  #position: number | undefined;
  /** The place last said on the stream: a GET refreshing the place must not swallow the change. */
  #told: number | undefined;
  #watching = false;

  constructor(host: PositionWatchHost, schedule: Schedule = (tick, ms) => void setTimeout(tick, ms)) {
    this.#host = host;
    this.#schedule = schedule;
  }

  /** Its place as last seen. */
  get position(): number | undefined {
    return this.#position;
  }

  /** It was put in a line at this place, and said so. */
  placed(position: number | undefined): void {
    this.#position = position;
    this.#told = position;
  }

  /** It waits no more. */
  left(): void {
    this.#position = undefined;
  }

  /** Looks at its place now; when nobody answers, the last known place stands. */
  async look(record: ExecutionRecord): Promise<number | undefined> {
    try {
      this.#position = await this.#host.look(record);
    } catch {
      // The last known place stands.
    }
    return this.#position;
  }

  /** Someone follows the execution: look once a second while it waits in line and someone still follows. */
  watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    const tick = async () => {
      const before = this.#host.watched();
      if (!keepWatching(before)) {
        this.#watching = false;
        return;
      }
      const looked = await this.look(before.record);
      if (worthTelling(looked, this.#told, before, this.#host.watched())) {
        this.#told = looked;
        this.#host.tell(before.record.status, looked);
      }
      this.#schedule(() => void tick(), POSITION_POLL_MS);
    };
    this.#schedule(() => void tick(), POSITION_POLL_MS);
  }
}
