/**
 * `tools/list` answers kept per edge copy of the registry (src/mcp/tools.ts): the same copy,
 * caller view and era give the answer built before; another caller view, or a new copy, builds
 * its own.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/contract.ts";
import type { McpScope } from "../../src/mcp/scope.ts";
import { listTools } from "../../src/mcp/tools.ts";
import { forgetSnapshot } from "../../src/registry/snapshot-cache.ts";

function scopeOf(caller: Caller): McpScope {
  return {
    env,
    caller,
    acceptedAt: 0,
    trace: { trace_id: "0".repeat(32), span_id: "0".repeat(16), flags: "01" },
    waitUntil: () => {},
  };
}

const everyone = scopeOf({ tenant: "t-list", agent: "a", capabilities: ["*"], channels: ["*"] });
const stdOnly = scopeOf({ tenant: "t-list", agent: "b", capabilities: ["*"], channels: ["std"] });

describe("tools/list per registry copy", () => {
  it("answers the same caller view from what it built, and another view or era apart", async () => {
    // A copy fetched now, so that no refresh (after REGISTRY_SNAPSHOT_TTL_MS) replaces it between the calls.
    forgetSnapshot();
    const first = await listTools(everyone, "modern");
    expect(first.length).toBeGreaterThan(0);
    const again = await listTools(everyone, "modern");
    expect(again).toEqual(first);
    // Built once: the second answer holds the very tool objects of the first.
    expect(again[0]).toBe(first[0]);
    // A caller's copy of the array: changing it changes no later answer.
    again.pop();
    expect(await listTools(everyone, "modern")).toHaveLength(first.length);

    const std = await listTools(stdOnly, "modern");
    expect(std.length).toBeGreaterThan(0);
    expect(std.length).toBeLessThan(first.length);
    expect(std.map((t) => t.name).every((n) => first.some((t) => t.name === n))).toBe(true);

    const legacy = await listTools(everyone, "legacy");
    expect(legacy[0]).not.toBe(first[0]);
    expect(legacy[0]).toHaveProperty("execution");
  });

  it("builds again from a new copy of the registry", async () => {
    const before = await listTools(everyone, "modern");
    forgetSnapshot();
    const after = await listTools(everyone, "modern");
    expect(after).toEqual(before);
    expect(after[0]).not.toBe(before[0]);
  });
});
