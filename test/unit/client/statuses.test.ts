/** Status and event words (client/statuses.ts) and what `trt` makes of them as exit codes. */
import { describe, expect, it } from "vitest";
import { describeEvent, describeStatus, KNOWN_STATUSES, progressFraction } from "../../../client/index.ts";
import { EXIT, exitCodeOfStatus } from "../../../cli/exit-codes.ts";

describe("statuses and events in words", () => {
  it("knows every status of the contract, and which are final", () => {
    expect(KNOWN_STATUSES).toEqual([
      "awaiting_approval",
      "queued",
      "scheduled",
      "running",
      "succeeded",
      "failed",
      "cancelled",
      "timed_out",
    ]);
    expect(describeStatus("awaiting_approval")).toMatchObject({
      label: "awaiting approval",
      tone: "waiting",
      terminal: false,
    });
    expect(KNOWN_STATUSES.filter((s) => describeStatus(s).terminal)).toEqual([
      "succeeded",
      "failed",
      "cancelled",
      "timed_out",
    ]);
    expect(describeStatus("timed_out").label).toBe("timed out");
  });

  it("shows a status it does not know by its own name, and does not take it for the end", () => {
    expect(describeStatus("paused_for_audit")).toMatchObject({
      label: "paused for audit",
      tone: "unknown",
      terminal: false,
    });
    expect(exitCodeOfStatus("paused_for_audit")).toBe(EXIT.ok);
    expect(exitCodeOfStatus("awaiting_approval")).toBe(EXIT.ok);
    expect(exitCodeOfStatus("cancelled")).toBe(EXIT.failed);
    expect(exitCodeOfStatus("succeeded")).toBe(EXIT.ok);
  });

  it("ends a stream only on done or error, whatever new event types appear", () => {
    expect(describeEvent("done").terminal).toBe(true);
    expect(describeEvent("error").terminal).toBe(true);
    expect(describeEvent("approval_requested")).toEqual({ label: "approval requested", terminal: false });
  });

  it("reads progress as percent or as done of total", () => {
    expect(progressFraction({ percent: 40 })).toBe(0.4);
    expect(progressFraction({ done: 3, total: 4 })).toBe(0.75);
    expect(progressFraction({ percent: 140 })).toBe(1);
    expect(progressFraction({ message: "working" })).toBeNull();
    expect(progressFraction("50%")).toBeNull();
  });
});
