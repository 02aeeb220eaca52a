/**
 * What `irserve tune` prints: the folds, the held-out gain, the setting chosen, and the config
 * snippet to paste (a fusion service with the learned parameters in its config, and a pipeline
 * alias that uses it).
 */
import { fusionFields, type FusionParams, type FusionTarget } from './fusion-target.js';
import { alignColumns, formatP } from './table.js';
import type { TuneResult } from './tune.js';

/** `w 0.7, 0.3 · k 20`. */
export function describeParams(params: FusionParams): string {
  const parts: string[] = [];
  if (params.weights) parts.push(`weights ${params.weights.join(', ')}`);
  if (params.k !== undefined) parts.push(`k ${params.k}`);
  return parts.join(', ') || '(none)';
}

/** The config snippet: a service of the rule with the parameters, and the alias. */
export function configSnippet(
  target: FusionTarget,
  params: FusionParams,
  alias: string,
): Record<string, unknown> {
  const service = `${alias}-fusion`;
  const cut = target.cut !== undefined ? `%${target.cut}` : '';
  return {
    services: [{ name: service, engine: target.rule, config: fusionFields(target.rule, params) }],
    pipeline_aliases: { [alias]: `{${target.branches.join(', ')}}${service}${cut}` },
  };
}

/** The snippet as JSON, one service per line (compact enough to read and paste). */
export function formatSnippet(snippet: Record<string, unknown>): string {
  const { services, pipeline_aliases: aliases } = snippet as {
    services: unknown[];
    pipeline_aliases: Record<string, string>;
  };
  return [
    '{',
    '  "services": [',
    ...services.map((s, i) => `    ${JSON.stringify(s)}${i < services.length - 1 ? ',' : ''}`),
    '  ],',
    `  "pipeline_aliases": ${JSON.stringify(aliases)}`,
    '}',
  ].join('\n');
}

/** The report of a tuning run. */
export function formatTuning(
  target: FusionTarget,
  result: TuneResult,
  options: { spaceText: string; seconds: number; check?: { score: number } | undefined },
): string {
  const m = result.measure;
  const header = [
    'fold',
    'train',
    'held out',
    'chosen on train',
    `train ${m}`,
    `held-out ${m}`,
    'default',
  ];
  const rows = result.folds.map((fold, i) => [
    String(i + 1),
    String(fold.train),
    String(fold.test),
    describeParams(fold.params),
    fold.trainScore.toFixed(4),
    fold.heldOut.toFixed(4),
    fold.defaultHeldOut.toFixed(4),
  ]);
  const h = result.heldOut;
  const lines = [
    `tuning ${target.pipeline} on ${m}: ${result.queries} judged queries, ${result.folds.length} folds, ${result.search} search over ${options.spaceText} (${result.tried} settings, ${options.seconds.toFixed(1)} s)`,
    '',
    alignColumns([header, ...rows]),
    '',
    `held-out ${m}: tuned ${h.tuned.toFixed(4)}, default (${describeParams(result.defaults)}) ${h.default.toFixed(4)}: ${h.difference >= 0 ? '+' : ''}${h.difference.toFixed(4)} (paired t-test p ${formatP(h.p)}, wins/losses/ties ${h.wins}/${h.losses}/${h.ties})`,
    `chosen on all ${result.queries} queries: ${describeParams(result.final.params)} (${m} ${result.final.score.toFixed(4)} on the queries it was chosen on; expect the held-out figure on new queries)`,
  ];
  if (options.check)
    lines.push(
      `checked through the server with these parameters: ${m} ${options.check.score.toFixed(4)}`,
    );
  return lines.join('\n');
}
