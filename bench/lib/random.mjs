// Seeded random numbers for the benches' synthetic corpora: the same seed gives the same
// corpus on every machine and every run.

import { seededRandom } from 'irserve/plugin';

/**
 * A generator of numbers in [0, 1): irserve's own seeded generator (mulberry32), so a bench and
 * the server's randomised code draw the same sequence for a seed.
 *
 * @example const random = seeded(1); random() // 0.627...
 */
export const seeded = seededRandom;

/** Standard normal draws (Box-Muller) from `random`. */
export function gaussianOf(random) {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * Draws of ranks 0..size-1 with probability proportional to 1 / (rank + 1)^exponent, O(1) each
 * (Vose's alias table; setting it up draws nothing from `random`).
 */
export function zipfSampler(random, size, exponent = 1) {
  const scaled = Float64Array.from({ length: size }, (_, r) => (r + 1) ** -exponent);
  const total = scaled.reduce((a, b) => a + b, 0);
  for (let i = 0; i < size; i++) scaled[i] = (scaled[i] / total) * size;
  const prob = new Float64Array(size);
  const alias = new Int32Array(size);
  const small = [];
  const large = [];
  scaled.forEach((x, i) => (x < 1 ? small : large).push(i));
  while (small.length && large.length) {
    const s = small.pop();
    const l = large.pop();
    prob[s] = scaled[s];
    alias[s] = l;
    scaled[l] = scaled[l] + scaled[s] - 1;
    (scaled[l] < 1 ? small : large).push(l);
  }
  for (const i of [...small, ...large]) prob[i] = 1;
  return () => {
    const i = Math.floor(random() * size);
    return random() < prob[i] ? i : alias[i];
  };
}
