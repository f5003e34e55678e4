import { describe, expect, it } from "vitest";
import { parseVerifierFailurePolicy } from "../../../src/pipeline/verifier-policy.ts";

describe("VERIFIER_FAILURE_POLICY", () => {
  it("skips for every effect it leaves out, and when absent", () => {
    expect(parseVerifierFailurePolicy(undefined)).toEqual({
      read: "skip",
      write: "skip",
      delete: "skip",
      send: "skip",
    });
    expect(parseVerifierFailurePolicy({ delete: "refuse", send: "refuse" })).toEqual({
      read: "skip",
      write: "skip",
      delete: "refuse",
      send: "refuse",
    });
  });

  it("refuses an unknown effect, an unknown action and a non-object, naming what is wrong", () => {
    expect(() => parseVerifierFailurePolicy({ erase: "refuse" })).toThrow(/erase is not an effect/);
    expect(() => parseVerifierFailurePolicy({ delete: "block" })).toThrow(/delete must be "skip" or "refuse"/);
    expect(() => parseVerifierFailurePolicy(["delete"])).toThrow(/must be an object/);
  });
});
