/**
 * The usage estimate's price model (src/audit/usage-prices.ts): per million executions it gives
 * the bench's counted totals (docs/scale.md#cost: $7.07 fast path, $10.46–10.79 on the object
 * paths), and a reported CPU millisecond at the Workers CPU price.
 */
import { describe, expect, it } from "vitest";
import { estimateCost, PRICES } from "../../../src/audit/usage-prices.ts";

describe("the usage price model", () => {
  it("prices a million executions as the bench's counted lines do, by path", () => {
    expect(estimateCost(PRICES, 1e6, 0, 0)).toBeCloseTo(7.07, 1);
    const object = estimateCost(PRICES, 0, 1e6, 0);
    expect(object).toBeGreaterThanOrEqual(10.4);
    expect(object).toBeLessThanOrEqual(10.8);
  });

  it("adds reported CPU at $0.02 per million milliseconds, and nothing for no executions", () => {
    expect(estimateCost(PRICES, 0, 0, 1e6)).toBeCloseTo(0.02, 9);
    expect(estimateCost(PRICES, 0, 0, 0)).toBe(0);
    expect(estimateCost(PRICES, 2, 1, 10)).toBeCloseTo(
      2 * estimateCost(PRICES, 1, 0, 0) + estimateCost(PRICES, 0, 1, 0) + estimateCost(PRICES, 0, 0, 10),
      8, // each part is rounded to nano-dollars on its own
    );
  });
});
