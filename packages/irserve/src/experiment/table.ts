/**
 * The terminal tables of an experiment: the means of every pipeline (a `*` after a mean whose
 * Holm-adjusted paired t-test against the baseline gives p < 0.05), then each pipeline against
 * the baseline per measure.
 */
import type { ExperimentResult } from './analyse.js';

/** Significance level of the `*` marks. */
export const ALPHA = 0.05;

/** Rows of cells as aligned text columns (first column left, the others right-aligned). */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A name cut to `max` characters (long pipeline expressions). */
export function shortName(name: string, max = 40): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

export function formatP(p: number): string {
  if (Number.isNaN(p)) return '–';
  return p < 0.0001 ? '<0.0001' : p.toFixed(4);
}

/** Comparisons grouped by pipeline, measures in the order given (a stable sort). */
export function byPipeline<T extends { pipeline: number }>(comparisons: readonly T[]): T[] {
  return [...comparisons].sort((a, b) => a.pipeline - b.pipeline);
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(4)}`;
}

/** The means table: one row per pipeline, one column per measure. */
export function meansTable(result: ExperimentResult): string {
  const header = ['pipeline', ...result.measures, 'failed'];
  const rows = result.pipelines.map((pipeline, index) => {
    const cells = result.measures.map((measure) => {
      const mean = pipeline.means[measure]!.mean.toFixed(4);
      const comparison = result.comparisons.find(
        (c) => c.pipeline === index && c.measure === measure,
      );
      return comparison && comparison.pTHolm < ALPHA ? `${mean}*` : `${mean} `;
    });
    const label = `${shortName(pipeline.name)}${index === result.baseline ? ' (baseline)' : ''}`;
    return [label, ...cells, String(pipeline.failed.length)];
  });
  return alignColumns([header, ...rows]);
}

/** Each pipeline against the baseline: difference, p-values (raw and Holm), d, W/L/T. */
export function comparisonTable(result: ExperimentResult): string {
  const header = [
    'against baseline',
    'measure',
    'mean',
    'diff',
    'p(t)',
    'p(t) Holm',
    'p(rand)',
    'p(rand) Holm',
    'd',
    'W/L/T',
  ];
  const rows = byPipeline(result.comparisons).map((c) => [
    shortName(result.pipelines[c.pipeline]!.name),
    c.measure,
    c.mean.toFixed(4),
    signed(c.difference),
    formatP(c.pT),
    formatP(c.pTHolm),
    formatP(c.pRandom),
    formatP(c.pRandomHolm),
    Number.isFinite(c.effectSize) ? c.effectSize.toFixed(3) : String(c.effectSize),
    `${c.wins}/${c.losses}/${c.ties}`,
  ]);
  return alignColumns([header, ...rows]);
}

/** Both tables with a heading line saying what was compared. */
export function formatExperiment(result: ExperimentResult, seconds: number): string {
  const { trials, seed } = result.settings;
  const lines = [
    `${result.queries.length} judged queries, ${result.pipelines.length} pipelines (${seconds.toFixed(1)} s); baseline ${result.pipelines[result.baseline]!.name}`,
    '',
    meansTable(result),
    '',
    `* p < ${ALPHA}, paired t-test against the baseline, Holm-Bonferroni over the pipelines per measure`,
  ];
  if (result.comparisons.length > 0)
    lines.push(
      `randomisation test: ${trials.toLocaleString('en')} sign flips, seed ${seed}; d: Cohen's d (paired)`,
      '',
      comparisonTable(result),
    );
  return lines.join('\n');
}
