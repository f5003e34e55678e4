/**
 * Definition pinning (issue 17, item 2). Registering an upstream approves the definitions its
 * allowed tools have at their first listing; after that, a definition whose hash differs from
 * the approved one is not served in its new form until an operator approves that very hash.
 * Meanwhile the approved definition keeps serving (`on_change: "keep"`) or the tool is
 * withheld (`"withhold"`). An upstream that goes back to the approved definition needs no one.
 * Pure: the registry object stores what this decides.
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

export interface Listed {
  definition: ToolDefinition;
  hash: string;
}

export interface PinEvent {
  tool: string;
  kind: "pinned" | "changed" | "reverted";
  hash: string;
  approved_hash?: string;
}

export interface PinDecision {
  /** What to offer, each tool in its approved form. */
  serve: Listed[];
  /** Tools listed with a changed definition and withheld until approved. */
  withheld: string[];
  newPins: Pin[];
  newPending: PendingChange[];
  /** Tools whose pending change is gone (the upstream went back to the approved definition). */
  cleared: string[];
  events: PinEvent[];
}

export function decidePins(listed: Listed[], pins: ReadonlyMap<string, Pin>, pending: ReadonlyMap<string, PendingChange>, onChange: OnChange, now: number): PinDecision {
  const d: PinDecision = { serve: [], withheld: [], newPins: [], newPending: [], cleared: [], events: [] };
  for (const seen of listed) {
    const tool = seen.definition.name;
    const pin = pins.get(tool);
    if (!pin) {
      d.newPins.push({ tool, hash: seen.hash, definition: seen.definition, approved_at: now, approved_by: "registration" });
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
    if (pending.get(tool)?.hash !== seen.hash) {
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
  return { tool: change.tool, hash: change.hash, definition: change.definition, approved_at: now, approved_by: "operator" };
}
