// Medians for benchmarks that repeat runs interleaved on a noisy machine.

/** The median of `xs` (the upper one of an even count). */
export function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/** The run whose `value(run)` is the median of the runs'. */
export function medianRun(runs, value) {
  const mid = median(runs.map(value));
  return runs.find((run) => value(run) === mid);
}
