/**
 * When the registry may give out a snapshot (docs/architecture.md, "The registry"). Every copy
 * of the snapshot — the data centers' relays, their Cache API entries, each isolate's copy —
 * comes from the registry's answers, and an edge takes the newest version it is given, however
 * few tools it holds. So a snapshot that has lost tools must not leave the registry unless
 * something that really removes tools explains it: a completed load of the providers' manifests
 * (which finds what they serve now), or an operator's removal (an upstream deleted, a provider
 * disabled). Anything else — a change applied to a catalog that was never loaded, or one lost
 * under the registry — would empty the catalog at every edge for two TTLs or more. Pure.
 */

/** What the registry last gave out: kept durably, so a restarted registry still knows it. */
export interface Published {
  version: number;
  tools: number;
}

export interface Candidate {
  version: number;
  tools: number;
  /**
   * How many tools the latest completed load, or operator's removal, left in the catalog:
   * what it explains. Undefined when there was none.
   */
  explainedTools?: number;
}

export type PublishDecision = { publish: true } | { publish: false; reason: string };

/**
 * A snapshot goes out when it holds at least as many tools as the last one given out, or at
 * least as many as the latest load or removal left: a shrink is explained down to what that
 * load found, and no further (a catalog lost after the load is not explained by it).
 */
export function publishDecision(last: Published | undefined, next: Candidate): PublishDecision {
  if (last === undefined || next.tools >= last.tools) return { publish: true };
  if (next.explainedTools !== undefined && next.tools >= next.explainedTools) return { publish: true };
  const explained =
    next.explainedTools === undefined
      ? "no load or operator's removal explains it"
      : `the latest load or removal left ${next.explainedTools}`;
  return {
    publish: false,
    reason: `version ${next.version} holds ${next.tools} tools, fewer than the ${last.tools} of version ${last.version} given out last, and ${explained}`,
  };
}

/** The count the rule compares: tool names in the snapshot. */
export function toolCount(snapshot: { tools: Record<string, unknown> }): number {
  return Object.keys(snapshot.tools).length;
}
