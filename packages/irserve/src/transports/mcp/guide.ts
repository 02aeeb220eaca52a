/**
 * The text that teaches an agent the running server: what a pipeline expression is, with
 * examples built from the services this instance serves (so they run as written).
 */
import type { AppCore } from '../../core/app-core.js';

/** Descriptions of the built-in fusion rules (`list_services`). */
export const FUSION_DESCRIPTIONS: Record<string, string> = {
  RRF: 'Reciprocal rank fusion: sum of 1/(60 + rank) over the lists',
  ScoreFusion: 'Sum of raw scores (RoutIR-compatible)',
  CombMNZ: 'Sum of min-max normalised scores times the number of lists containing the document',
  MinMaxFusion: 'Sum of min-max normalised scores',
  ZScoreFusion: 'Sum of z-score normalised scores',
  WeightedRRF: 'Reciprocal rank fusion with a weight per list',
  Borda: 'Borda count: points by rank position',
};

/** Example pipelines from the services at hand: at most five, each runnable here. */
export function pipelineExamples(core: AppCore): string[] {
  const search = core.services.names('search');
  // A dedicated reranker reads better in examples than a search engine that also scores.
  const allScore = core.services.names('score');
  const score = [
    ...allScore.filter((n) => !search.includes(n)),
    ...allScore.filter((n) => search.includes(n)),
  ];
  const fuse = core.services.names('fuse');
  const merger = fuse.includes('RRF') ? 'RRF' : fuse[0];
  const [first, second] = search;
  const examples: string[] = [];
  if (first) examples.push(`${first}%100`);
  if (first && score[0]) examples.push(`${first}%100 >> ${score[0]}%10`);
  if (first && second && merger) examples.push(`{${first}, ${second}}${merger}%50`);
  if (first && second && merger && score[0])
    examples.push(`{${first}, ${second}}${merger}%100 >> ${score[0]}%10`);
  const aliases = Object.keys(core.pipelines.aliases());
  if (aliases[0]) examples.push(aliases[0]);
  return examples.slice(0, 5);
}

/** The pipeline language in a paragraph, with this server's examples. */
export function pipelineGuide(core: AppCore): string {
  const examples = pipelineExamples(core);
  const aliases = Object.entries(core.pipelines.aliases());
  return [
    'A pipeline expression chains stages with ">>", left to right. The first stage is a search service;',
    'each later stage is a score service that reranks the previous result (it reads document text from `collection`).',
    '"{a, b}F" runs a and b in parallel and merges them with the fuse service F (such as RRF).',
    '"%N" after a stage keeps its top N (for a search stage it is the search limit).',
    examples.length > 0
      ? `Examples on this server: ${examples.map((e) => `"${e}"`).join(', ')}.`
      : 'This server has no search service yet.',
    aliases.length > 0
      ? `Named pipelines (aliases usable as stages): ${aliases.map(([name, body]) => `${name} = ${body}`).join('; ')}.`
      : '',
    'Call list_services for the services and collections.',
  ]
    .filter((line) => line !== '')
    .join(' ');
}
