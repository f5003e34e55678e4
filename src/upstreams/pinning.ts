/**
 * Definition pinning. Registering an upstream approves the definitions its
 * allowed tools have at their first listing; after that, a definition whose hash differs from
 * the approved one is not served in its new form until an operator approves that very hash.
 * Meanwhile the approved definition keeps serving (`on_change: "keep"`) or the tool is
 * withheld (`"withhold"`). An upstream that goes back to the approved definition needs no one.
 * An operator may instead reject the pending hash: nothing that serves changes, and that hash
 * is never offered for approval again (another new hash is). Pure: the registry object stores
 * what this decides.
 */
import type { OnChange } from "./config.ts";
import type { ToolDefinition } from "./definition.ts";

export interface Pin {
  tool: string;
  hash: string;
  definition: ToolDefinition;
  approved_at: number;
  /** "registration": its first listing; "operator": approved after a change. */
  approved_by: "registration" | "operator";
}

export interface PendingChange {
  tool: string;
  hash: string;
  definition: ToolDefinition;
  /** When this definition was first listed. */
  seen_at: number;
}

/** An operator's refusal of one changed definition, remembered so it is not raised again. */
export interface Rejection {
  tool: string;
  hash: string;
  rejected_at: number;
  /** The operator's key: `tenant/agent`. */
  rejected_by: string;
  reason: string | null;
}

/** Rejected hashes, by tool. */
export type RejectedHashes = ReadonlyMap<string, ReadonlySet<string>>;

export interface Listed {
  definition: ToolDefinition;
  hash: string;
}

export interface PinEvent {
  tool: string;
  /** `rejected_again`: the upstream lists a rejected definition once more, dropping a change pending for another. */
  kind: "pinned" | "changed" | "reverted" | "rejected_again";
  hash: string;
  approved_hash?: string;
}

export interface PinDecision {
  /** What to offer, each tool in its approved form. */
  serve: Listed[];
  /** Tools listed with a changed definition and withheld until approved. */
  withheld: string[];
  /** Tools whose listed definition is one an operator rejected (served or withheld as `withheld` says). */
  rejected: string[];
  newPins: Pin[];
  newPending: PendingChange[];
  /** Tools whose pending change is gone (the upstream went back to the approved definition). */
  cleared: string[];
  events: PinEvent[];
}

export function decidePins(
  listed: Listed[],
  pins: ReadonlyMap<string, Pin>,
  pending: ReadonlyMap<string, PendingChange>,
  onChange: OnChange,
  now: number,
  rejected: RejectedHashes = new Map(),
): PinDecision {
  const d: PinDecision = {
    serve: [],
    withheld: [],
    rejected: [],
    newPins: [],
    newPending: [],
    cleared: [],
    events: [],
  };
  for (const seen of listed) {
    const tool = seen.definition.name;
    const pin = pins.get(tool);
    if (!pin) {
      d.newPins.push({
        tool,
        hash: seen.hash,
        definition: seen.definition,
        approved_at: now,
        approved_by: "registration",
      });
      d.serve.push(seen);
      d.events.push({ tool, kind: "pinned", hash: seen.hash });
      continue;
    }
    if (pin.hash === seen.hash) {
      d.serve.push({ definition: pin.definition, hash: pin.hash });
      if (pending.has(tool)) {
        d.cleared.push(tool);
        d.events.push({ tool, kind: "reverted", hash: pin.hash });
      }
      continue;
    }
    if (rejected.get(tool)?.has(seen.hash)) {
      // Not offered for approval again. A change pending for another hash is no longer what
      // the upstream lists, so it goes, as it does when the upstream reverts.
      d.rejected.push(tool);
      if (pending.has(tool)) {
        d.cleared.push(tool);
        d.events.push({ tool, kind: "rejected_again", hash: seen.hash, approved_hash: pin.hash });
      }
    } else if (pending.get(tool)?.hash !== seen.hash) {
      d.newPending.push({ tool, hash: seen.hash, definition: seen.definition, seen_at: now });
      d.events.push({ tool, kind: "changed", hash: seen.hash, approved_hash: pin.hash });
    }
    if (onChange === "keep") d.serve.push({ definition: pin.definition, hash: pin.hash });
    else d.withheld.push(tool);
  }
  return d;
}

/** Approving a change: the pending definition, if it is the one the operator reviewed (by hash), becomes the pin. */
export function approve(change: PendingChange | undefined, hash: string, now: number): Pin | undefined {
  if (!change || change.hash !== hash) return undefined;
  return {
    tool: change.tool,
    hash: change.hash,
    definition: change.definition,
    approved_at: now,
    approved_by: "operator",
  };
}

/**
 * Rejecting a change: the pending definition, if it is the one the operator reviewed (by hash),
 * is dismissed and remembered. The pin is untouched, so what served before serves on.
 */
export function reject(
  change: PendingChange | undefined,
  hash: string,
  now: number,
  by: string,
  reason: string | null,
): Rejection | undefined {
  if (!change || change.hash !== hash) return undefined;
  return { tool: change.tool, hash: change.hash, rejected_at: now, rejected_by: by, reason };
}

/** Rejections as decidePins takes them. */
export function rejectedHashes(rejections: Iterable<Rejection>): RejectedHashes {
  const byTool = new Map<string, Set<string>>();
  for (const r of rejections) byTool.set(r.tool, (byTool.get(r.tool) ?? new Set()).add(r.hash));
  return byTool;
}
