import { describe, expect, it } from "vitest";
import { activeVersion, compareSemver, parseSemver } from "../../../src/registry/semver.ts";

const sign = (n: number) => Math.sign(n);

describe("compareSemver (semver 2.0.0 precedence)", () => {
  const chain = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
  ];

  it("orders the semver spec's prerelease example chain", () => {
    for (let i = 0; i < chain.length - 1; i++) {
      expect([chain[i], chain[i + 1], sign(compareSemver(chain[i], chain[i + 1]))]).toEqual([
        chain[i],
        chain[i + 1],
        -1,
      ]);
      expect([chain[i + 1], chain[i], sign(compareSemver(chain[i + 1], chain[i]))]).toEqual([
        chain[i + 1],
        chain[i],
        1,
      ]);
    }
  });

  it("sorts a shuffled chain back into precedence order", () => {
    const shuffled = [chain[5], chain[0], chain[7], chain[3], chain[1], chain[6], chain[2], chain[4]];
    expect(shuffled.sort(compareSemver)).toEqual(chain);
  });

  it("compares major, minor and patch numerically, not as text", () => {
    expect(sign(compareSemver("1.9.0", "1.10.0"))).toBe(-1);
    expect(sign(compareSemver("2.0.0", "10.0.0"))).toBe(-1);
    expect(sign(compareSemver("1.0.10", "1.0.9"))).toBe(1);
    expect(sign(compareSemver("2.0.0", "1.99.99"))).toBe(1);
  });

  it("compares numeric prerelease identifiers numerically", () => {
    expect(sign(compareSemver("1.0.0-rc.2", "1.0.0-rc.10"))).toBe(-1);
  });

  it("ranks numeric identifiers below alphanumeric ones", () => {
    expect(sign(compareSemver("1.0.0-1", "1.0.0-a"))).toBe(-1);
    expect(sign(compareSemver("1.0.0-alpha.999", "1.0.0-alpha.a"))).toBe(-1);
  });

  it("compares alphanumeric identifiers in ASCII order", () => {
    expect(sign(compareSemver("1.0.0-Beta", "1.0.0-alpha"))).toBe(-1);
  });

  it("ranks a prerelease of a higher version above the release of a lower one", () => {
    expect(sign(compareSemver("2.0.0-alpha", "1.9.9"))).toBe(1);
  });

  it("says equal versions are equal", () => {
    expect(compareSemver("1.2.3", "1.2.3")).toBe(0);
    expect(compareSemver("1.2.3-rc.1", "1.2.3-rc.1")).toBe(0);
  });
});

describe("parseSemver", () => {
  it("splits core and prerelease", () => {
    expect(parseSemver("1.2.3-rc.1")).toEqual({ core: [1, 2, 3], pre: ["rc", "1"] });
  });
  it("refuses leading zeros and missing parts", () => {
    expect(parseSemver("01.0.0")).toBeNull();
    expect(parseSemver("1.0")).toBeNull();
  });
});

describe("activeVersion", () => {
  it("picks the highest release", () => {
    expect(activeVersion(["1.2.0", "1.10.0", "1.9.3"])).toBe("1.10.0");
  });

  it("prefers the highest release over a higher prerelease", () => {
    expect(activeVersion(["1.0.0", "2.0.0-rc.1", "1.1.0", "3.0.0-alpha"])).toBe("1.1.0");
  });

  it("picks the highest prerelease when there are only prereleases", () => {
    expect(activeVersion(["1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-alpha"])).toBe("1.0.0-beta.11");
  });

  it("returns undefined for no versions", () => {
    expect(activeVersion([])).toBeUndefined();
  });

  it("does not reorder the caller's list", () => {
    const versions = ["1.0.0", "2.0.0", "1.5.0"];
    activeVersion(versions);
    expect(versions).toEqual(["1.0.0", "2.0.0", "1.5.0"]);
  });
});
