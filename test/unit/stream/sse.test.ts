import { describe, expect, it } from "vitest";
import { frameEvent, frameHeartbeat, frameRetry, resumeAfter } from "../../../src/stream/sse.ts";

describe("SSE framing", () => {
  it("frames an event with its sequence number as the id and the type as the event name", () => {
    const text = frameEvent({ seq: 7, type: "progress", data: { percent: 40 }, at: Date.UTC(2026, 10, 30) });
    expect(text).toBe(
      `id: 7\nevent: progress\ndata: {"seq":7,"type":"progress","at":"2026-11-30T00:00:00.000Z","data":{"percent":40}}\n\n`,
    );
  });

  it("keeps multi-line data on one data line (JSON escapes the newlines)", () => {
    const text = frameEvent({ seq: 1, type: "stdout", data: "a\nb\n", at: 0 });
    expect(text.split("\n").filter((l) => l.startsWith("data: "))).toHaveLength(1);
  });

  it("sends retry and heartbeat as the protocol expects", () => {
    expect(frameRetry(1500)).toBe("retry: 1500\n\n");
    expect(frameHeartbeat().startsWith(":")).toBe(true);
  });

  it("resumes from Last-Event-ID before ?after=, and from the start without either", () => {
    expect(resumeAfter("12", "3")).toBe(12);
    expect(resumeAfter(null, "3")).toBe(3);
    expect(resumeAfter(undefined, undefined)).toBe(0);
    expect(resumeAfter("", undefined)).toBe(0);
  });

  it("refuses a cursor that is not a non-negative integer", () => {
    for (const bad of ["-1", "abc", "1.5", "1e3", "9".repeat(20)]) expect(resumeAfter(bad, null)).toBeNull();
  });
});
