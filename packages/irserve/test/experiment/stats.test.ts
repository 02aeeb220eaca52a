/**
 * Significance against fixed values (computed once with scipy 1.17: stats.ttest_rel, stats.t.cdf,
 * stats.t.ppf, special.betainc, special.gammaln) and against independent implementations
 * written here: the t distribution's CDF by integrating its density, and the randomisation test
 * against the exact sign-flip test over all 2^n flips.
 */
import { describe, expect, it } from 'vitest';
import { lnGamma, regularizedBeta } from '../../src/experiment/special-functions.js';
import {
  cohensD,
  confidenceInterval,
  holm,
  pairedTTest,
  randomisationTest,
  studentTCdf,
  studentTQuantile,
  winsLossesTies,
} from '../../src/experiment/stats.js';

const BASE = [0.31, 0.52, 0.0, 0.77, 0.45, 0.12, 0.66, 0.9, 0.38, 0.25];
const TREATMENT = [0.35, 0.61, 0.1, 0.7, 0.55, 0.12, 0.8, 0.92, 0.41, 0.3];

describe('special functions', () => {
  it('match scipy', () => {
    expect(regularizedBeta(0.3, 2.5, 0.5)).toBeCloseTo(0.018927124071945658, 13);
    expect(regularizedBeta(0.99, 100, 0.5)).toBeCloseTo(0.1567758654244408, 13);
    expect(lnGamma(0.3)).toBeCloseTo(1.0957979948180756, 12);
    expect(lnGamma(50.5)).toBeCloseTo(146.51925549072064, 10);
  });
});

describe("Student's t", () => {
  it('CDF and quantiles match scipy', () => {
    const cases: [number, number, number][] = [
      [2.0, 5, 0.9490302605850708],
      [-1.3, 12, 0.10900858554175706],
      [0.5, 1, 0.6475836176504333],
      [3.7, 224, 0.9998643251786418],
      [10, 3, 0.9989358004707929],
    ];
    for (const [t, df, p] of cases) expect(studentTCdf(t, df)).toBeCloseTo(p, 12);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157162798205, 9);
    expect(studentTQuantile(0.975, 224)).toBeCloseTo(1.9706109611023637, 9);
    expect(studentTQuantile(0.995, 2)).toBeCloseTo(9.924843200918287, 8);
  });

  it('CDF agrees with the integral of the density (Simpson, written here)', () => {
    const density = (x: number, df: number) =>
      Math.exp(lnGamma((df + 1) / 2) - lnGamma(df / 2)) /
      Math.sqrt(df * Math.PI) /
      (1 + (x * x) / df) ** ((df + 1) / 2);
    const integral = (t: number, df: number) => {
      // P(T <= t) = 1/2 + ∫_0^t density
      const steps = 20_000;
      const h = t / steps;
      let acc = density(0, df) + density(t, df);
      for (let i = 1; i < steps; i++) acc += (i % 2 ? 4 : 2) * density(i * h, df);
      return 0.5 + (acc * h) / 3;
    };
    for (const df of [1, 2, 3, 7, 30, 150])
      for (const t of [-4, -1.5, -0.2, 0.7, 2.1, 5])
        expect(studentTCdf(t, df)).toBeCloseTo(integral(t, df), 9);
  });
});

describe('paired tests', () => {
  it('t-test matches scipy.stats.ttest_rel', () => {
    const small = pairedTTest([0.1, 0.2, 0.3], [0.2, 0.3, 0.5]);
    expect(small.t).toBeCloseTo(4, 12);
    expect(small.p).toBeCloseTo(0.05719095841793666, 12);
    const ten = pairedTTest(BASE, TREATMENT);
    expect(ten.t).toBeCloseTo(2.6111648393354665, 12);
    expect(ten.p).toBeCloseTo(0.028216803759726638, 12);
    expect(ten.meanDifference).toBeCloseTo(0.05, 12);
  });

  it('t-test degenerate cases: identical systems, constant shifts, one pair', () => {
    expect(pairedTTest(BASE, BASE)).toEqual({ meanDifference: 0, t: 0, p: 1 });
    const shifted = pairedTTest(
      BASE,
      BASE.map((v) => v + 0.1),
    );
    expect(shifted.p).toBe(0);
    expect(shifted.t).toBe(Infinity);
    expect(pairedTTest([0.5], [0.7]).p).toBeNaN();
  });

  it('randomisation test: seeded, and close to the exact sign-flip test', () => {
    const p = randomisationTest(BASE, TREATMENT, { trials: 20_000, seed: 7 });
    expect(p).toBe(randomisationTest(BASE, TREATMENT, { trials: 20_000, seed: 7 }));
    // Exact: every one of the 2^10 sign patterns of the differences.
    const diffs = TREATMENT.map((v, i) => v - BASE[i]!);
    const observed = Math.abs(diffs.reduce((a, b) => a + b, 0));
    let atLeast = 0;
    for (let mask = 0; mask < 1 << diffs.length; mask++) {
      const total = diffs.reduce((acc, d, i) => acc + (mask & (1 << i) ? -d : d), 0);
      if (Math.abs(total) >= observed - 1e-12) atLeast++;
    }
    const exact = atLeast / 2 ** diffs.length;
    expect(exact).toBeCloseTo(0.0390625, 12); // scipy/itertools, the same enumeration
    expect(Math.abs(p - exact)).toBeLessThan(0.006); // 4 standard errors at 20,000 trials
    expect(randomisationTest(BASE, BASE)).toBe(1);
  });

  it('Holm-Bonferroni, by hand', () => {
    // Sorted: 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04, raised to 0.06).
    const adjusted = holm([0.01, 0.04, 0.03]);
    expect(adjusted[0]).toBeCloseTo(0.03, 15);
    expect(adjusted[1]).toBeCloseTo(0.06, 15);
    expect(adjusted[2]).toBeCloseTo(0.06, 15);
    expect(holm([0.5, 0.6])).toEqual([1, 1]);
    const withNaN = holm([0.02, Number.NaN]);
    expect(withNaN[0]).toBeCloseTo(0.02, 15);
    expect(withNaN[1]).toBeNaN();
  });

  it("Cohen's d, confidence intervals, wins / losses / ties", () => {
    expect(cohensD(BASE, TREATMENT)).toBeCloseTo(0.82572282384477, 12);
    const ci = confidenceInterval(BASE);
    expect(ci.low).toBeCloseTo(0.23256790146061676, 9);
    expect(ci.high).toBeCloseTo(0.6394320985393833, 9);
    expect(winsLossesTies(BASE, TREATMENT)).toEqual({ wins: 8, losses: 1, ties: 1 });
  });
});
