/**
 * Paired significance of per-query values (docs/experiments.md): Student's paired t-test, a
 * seeded randomisation (sign-flip permutation) test, Holm-Bonferroni's correction, Cohen's d
 * for paired samples, t confidence intervals, and wins / losses / ties. Pure functions of
 * numbers; nothing here knows about queries or pipelines.
 */
import { seededRandom } from '../util/seeded-random.js';
import { regularizedBeta } from './special-functions.js';

/** Differences smaller than this count as ties (measures are sums of a few fractions). */
export const TIE_EPSILON = 1e-12;

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length > 0 ? sum / values.length : 0;
}

/** Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values. */
export function sampleSd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  let squares = 0;
  for (const v of values) squares += (v - m) ** 2;
  return Math.sqrt(squares / (values.length - 1));
}

/** P(T <= t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** The t with P(T <= t) = p (bisection on the CDF; 1e-12 close). */
export function studentTQuantile(p: number, df: number): number {
  let low = -1e3;
  let high = 1e3;
  for (let i = 0; i < 200 && high - low > 1e-12; i++) {
    const middle = (low + high) / 2;
    if (studentTCdf(middle, df) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

export interface PairedTest {
  /** Mean of `treatment - baseline`. */
  meanDifference: number;
  /** t statistic (±Infinity when every difference is the same non-zero number). */
  t: number;
  /** Two-sided p-value; NaN with fewer than two pairs. */
  p: number;
}

/**
 * Student's paired t-test of `treatment` against `baseline` (two-sided), as scipy's ttest_rel.
 *
 * @example
 * pairedTTest([0.1, 0.2, 0.3], [0.2, 0.3, 0.5]).p // 0.0572 (t = 4, 2 degrees of freedom)
 */
export function pairedTTest(baseline: readonly number[], treatment: readonly number[]): PairedTest {
  const diffs = differences(baseline, treatment);
  const n = diffs.length;
  const meanDifference = mean(diffs);
  if (n < 2) return { meanDifference, t: Number.NaN, p: Number.NaN };
  const se = sampleSd(diffs) / Math.sqrt(n);
  // Differences that are all the same number, up to rounding: no spread to test against.
  if (se <= TIE_EPSILON) {
    if (Math.abs(meanDifference) <= TIE_EPSILON) return { meanDifference, t: 0, p: 1 };
    return { meanDifference, t: Math.sign(meanDifference) * Infinity, p: 0 };
  }
  const t = meanDifference / se;
  return { meanDifference, t, p: 2 * studentTCdf(-Math.abs(t), n - 1) };
}

/**
 * Paired randomisation test: the share of `trials` random sign flips of the differences whose
 * mean is at least as far from 0 as the observed one, counting the observed one
 * ((hits + 1) / (trials + 1), never 0). Seeded: the same inputs and seed give the same p.
 */
export function randomisationTest(
  baseline: readonly number[],
  treatment: readonly number[],
  options: { trials?: number; seed?: number } = {},
): number {
  const diffs = differences(baseline, treatment);
  if (diffs.length === 0) return Number.NaN;
  const trials = options.trials ?? 10_000;
  const random = seededRandom(options.seed ?? 42);
  const observed = Math.abs(sum(diffs));
  let hits = 0;
  for (let trial = 0; trial < trials; trial++) {
    let total = 0;
    for (const d of diffs) total += random() < 0.5 ? -d : d;
    if (Math.abs(total) >= observed - TIE_EPSILON) hits++;
  }
  return (hits + 1) / (trials + 1);
}

/**
 * Holm-Bonferroni: each p-value adjusted for `pValues.length` tests (step-down, monotone,
 * capped at 1), in the input's order. NaN stays NaN and is not counted as a test.
 *
 * @example holm([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holm(pValues: readonly number[]): number[] {
  const tested = pValues.map((p, index) => ({ p, index })).filter(({ p }) => !Number.isNaN(p));
  tested.sort((a, b) => a.p - b.p);
  const adjusted = pValues.map(() => Number.NaN);
  let running = 0;
  tested.forEach(({ p, index }, rank) => {
    running = Math.max(running, Math.min(1, (tested.length - rank) * p));
    adjusted[index] = running;
  });
  return adjusted;
}

/** Cohen's d for paired samples (d_z): mean difference over the differences' standard deviation. */
export function cohensD(baseline: readonly number[], treatment: readonly number[]): number {
  const diffs = differences(baseline, treatment);
  const sd = sampleSd(diffs);
  if (sd <= TIE_EPSILON)
    return Math.abs(mean(diffs)) <= TIE_EPSILON ? 0 : Math.sign(mean(diffs)) * Infinity;
  return mean(diffs) / sd;
}

/** Mean and its two-sided t confidence interval (`level` 0.95 by default). */
export function confidenceInterval(
  values: readonly number[],
  level = 0.95,
): { mean: number; low: number; high: number } {
  const m = mean(values);
  if (values.length < 2) return { mean: m, low: m, high: m };
  const half =
    studentTQuantile(1 - (1 - level) / 2, values.length - 1) *
    (sampleSd(values) / Math.sqrt(values.length));
  return { mean: m, low: m - half, high: m + half };
}

/** Queries where `treatment` beats, loses to and ties `baseline`. */
export function winsLossesTies(
  baseline: readonly number[],
  treatment: readonly number[],
): { wins: number; losses: number; ties: number } {
  const counts = { wins: 0, losses: 0, ties: 0 };
  for (const d of differences(baseline, treatment)) {
    if (d > TIE_EPSILON) counts.wins++;
    else if (d < -TIE_EPSILON) counts.losses++;
    else counts.ties++;
  }
  return counts;
}

function differences(baseline: readonly number[], treatment: readonly number[]): number[] {
  if (baseline.length !== treatment.length)
    throw new RangeError(
      `paired samples differ in length: ${baseline.length} and ${treatment.length}`,
    );
  return treatment.map((v, i) => v - baseline[i]!);
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
