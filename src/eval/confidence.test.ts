import { describe, expect, it } from "vitest";
import { compareRates, fisherExactTwoSided, formatRate, passRateInterval, wilsonInterval } from "./confidence.js";

describe("confidence: Wilson intervals and the two-sided Fisher exact test", () => {
  it("Wilson 95% intervals match published values", () => {
    // Newcombe (1998), table I: 81/263 → 0.2553–0.3662; 15/148 → 0.0624–0.1605.
    expect(wilsonInterval(81, 263)!.map((x) => x.toFixed(4))).toEqual(["0.2553", "0.3662"]);
    expect(wilsonInterval(15, 148)!.map((x) => x.toFixed(4))).toEqual(["0.0624", "0.1605"]);
    expect(wilsonInterval(0, 10)![0]).toBe(0);
    expect(wilsonInterval(10, 10)![1]).toBe(1);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("Fisher's exact test matches known p-values (the tea-tasting table: 3/4 vs 1/4 → 0.486)", () => {
    expect(fisherExactTwoSided(3, 4, 1, 4)).toBeCloseTo(0.4857, 4);
    expect(fisherExactTwoSided(1, 10, 9, 10)).toBeCloseTo(0.001093, 5);
    expect(fisherExactTwoSided(5, 5, 5, 5)).toBe(1);
  });

  it('"3/16 vs 4/16" is within noise, not a fix; 2/16 vs 14/16 is significant', () => {
    const noise = compareRates({ passed: 3, total: 16 }, { passed: 4, total: 16 });
    expect(noise).toMatchObject({ significant: false, verdict: "within noise" });
    expect(noise.pValue).toBeCloseTo(1, 9);
    const fix = compareRates({ passed: 2, total: 16 }, { passed: 14, total: 16 });
    expect(fix).toMatchObject({ significant: true, verdict: "better" });
    expect(compareRates({ passed: 14, total: 16 }, { passed: 2, total: 16 }).verdict).toBe("worse");
    expect(compareRates({ passed: 0, total: 0 }, { passed: 2, total: 3 }).verdict).toBe("not comparable");
    expect(formatRate(passRateInterval(3, 16))).toBe("3/16 (19%, 95% CI 7%–43%)");
  });
});
