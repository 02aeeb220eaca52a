import type { FuseRequest, Scores } from '../engines/contract.js';
import type { CallOptions } from '../registry/types.js';
import type { BoundGroup, BoundRerank, BoundSearch, BoundSeq, BoundStage } from './bound.js';
import type { PassageSource } from './content-fetcher.js';
import type { StageRole } from './plan.js';
import { RANKING_KEYS } from '../engines/fusion/rankings.js';
import { cutRanking, emptyScores, zipScores, type Ranking } from './scores.js';
import type { Trace } from './trace.js';

/** What one pipeline run shares across its stages. */
export interface RunContext {
  /** Present when the request names a collection (rerank stages need it). */
  readonly fetcher: PassageSource | undefined;
  readonly options: CallOptions;
  /** Present when the request asks for `explain`. */
  readonly trace: Trace | undefined;
}

/** What a stage or sequence hands on. */
export interface Flow extends Ranking {
  /** Sub-queries of the expanders that ran, in plan order. */
  readonly expanded: readonly string[];
}

const NONE: readonly string[] = [];

/** When a stage started, for the trace; 0 without one (no clock read per stage for nothing). */
const startedAt = (context: RunContext) => (context.trace ? performance.now() : 0);

/**
 * Runs a sequence: each stage gets the query and the previous stage's scores (`input` for the
 * first, which is undefined at the start of a pipeline and the group's input in a branch).
 */
export async function runSeq(
  seq: BoundSeq,
  query: string,
  input: Scores | undefined,
  context: RunContext,
): Promise<Flow> {
  let scores = input;
  let keys: readonly string[] | undefined;
  let ranked = false;
  let expanded = NONE;
  for (const stage of seq.stages) {
    const flow = await runStage(stage, query, scores, keys, context);
    scores = flow.scores;
    keys = flow.keys;
    ranked = flow.ranked;
    if (flow.expanded.length > 0) expanded = [...expanded, ...flow.expanded];
  }
  return { scores: scores ?? emptyScores(), keys, ranked, expanded };
}

function runStage(
  stage: BoundStage,
  query: string,
  input: Scores | undefined,
  inputKeys: readonly string[] | undefined,
  context: RunContext,
): Promise<Flow> {
  switch (stage.kind) {
    case 'search':
      return runSearch(stage, query, context);
    case 'rerank':
      return runRerank(stage, query, input ?? emptyScores(), inputKeys, context);
    case 'group':
      return runGroup(stage, query, input, context);
  }
}

async function runSearch(stage: BoundSearch, query: string, context: RunContext): Promise<Flow> {
  const started = startedAt(context);
  const result = await stage.service.call(
    { ...stage.fields, query, limit: stage.limit },
    context.options,
  );
  const checked = stage.service.checkedKeys?.(result.value);
  const { scores, keys, ranked } = cutRanking(result.value, stage.cut, checked);
  context.trace?.record(entry(stage, query, 0, scores, result.cached), started, scores);
  return { scores, keys, ranked, expanded: NONE };
}

/**
 * Rescores the input's documents with their content from the request's collection. Scores are
 * zipped back onto the ids in the order the passages were sent (RoutIR sorted one list but not
 * the other, and attached scores to the wrong documents).
 */
async function runRerank(
  stage: BoundRerank,
  query: string,
  input: Scores,
  inputKeys: readonly string[] | undefined,
  context: RunContext,
): Promise<Flow> {
  const started = startedAt(context);
  const ids = inputKeys ?? Object.keys(input);
  if (ids.length === 0 || !context.fetcher) {
    context.trace?.record(entry(stage, query, 0, emptyScores(), false), started, emptyScores());
    return { scores: emptyScores(), keys: undefined, ranked: false, expanded: NONE };
  }
  const passages = await context.fetcher.passages(stage, ids);
  const result = await stage.service.call({ ...stage.fields, query, passages }, context.options);
  // Added in the input's key order, so the zipped map's keys are `ids` again.
  const { scores, keys, ranked } = cutRanking(zipScores(ids, result.value), stage.cut, ids);
  context.trace?.record(entry(stage, query, ids.length, scores, result.cached), started, scores);
  return { scores, keys, ranked, expanded: NONE };
}

/**
 * Runs every branch for every query concurrently (the sub-queries when an expander precedes
 * the group, else the query itself), each branch starting from the group's input, then fuses
 * the branch results, branch-major: [b1(q1), b1(q2), ..., b2(q1), ...].
 */
async function runGroup(
  group: BoundGroup,
  query: string,
  input: Scores | undefined,
  context: RunContext,
): Promise<Flow> {
  const subQueries = group.expander ? await runExpander(group, query, context) : undefined;
  // An expander that finds no sub-query leaves the query itself, rather than fusing nothing.
  const queries = subQueries && subQueries.length > 0 ? subQueries : [query];
  const flows = await Promise.all(
    queries.length === 1
      ? group.branches.map((branch) => runSeq(branch, queries[0]!, input, context))
      : group.branches.flatMap((branch) => queries.map((q) => runSeq(branch, q, input, context))),
  );
  const started = startedAt(context);
  const rankings = flows.map((flow) => flow.scores);
  const { merger } = group;
  const request: FuseRequest = { ...merger.fields, query, rankings };
  // The rankings' keys go along (not sent anywhere): the built-in rules need not read them again.
  // Set apart from the literal: a computed key there sends V8 to its slow object creation.
  (request as { [RANKING_KEYS]?: unknown })[RANKING_KEYS] = flows.map(keysOf);
  const result = await merger.service.call(request, context.options);
  const checked = merger.service.checkedKeys?.(result.value);
  const { scores, keys, ranked } = cutRanking(result.value, merger.cut, checked);
  if (context.trace) {
    // Counted only for an explained request: keys of every ranking, on every request, for nothing.
    const size = rankings.reduce((n, ranking) => n + Object.keys(ranking).length, 0);
    context.trace.record(entry(merger, query, size, scores, result.cached), started, scores);
  }
  // Most groups have no expander anywhere below them: no arrays made to hold nothing.
  const none = subQueries === undefined && flows.every((flow) => flow.expanded.length === 0);
  const expanded = none
    ? NONE
    : [...(subQueries ?? NONE), ...flows.flatMap((flow) => flow.expanded)];
  return { scores, keys, ranked, expanded };
}

const keysOf = (flow: Flow) => flow.keys;

/** The expander's sub-queries, at most `%N` of them. */
async function runExpander(group: BoundGroup, query: string, context: RunContext) {
  const expander = group.expander;
  if (!expander) return NONE;
  const started = startedAt(context);
  const result = await expander.service.call({ ...expander.fields, query }, context.options);
  const queries = expander.cut === undefined ? result.value : result.value.slice(0, expander.cut);
  context.trace?.record(
    {
      stage: expander.label,
      service: expander.service.name,
      role: expander.role,
      query,
      input: 1,
      output: queries.length,
      cached: result.cached,
    },
    started,
  );
  return queries;
}

function entry(
  stage: { label: string; service: { name: string }; role: StageRole },
  query: string,
  input: number,
  scores: Scores,
  cached: boolean,
) {
  return {
    stage: stage.label,
    service: stage.service.name,
    role: stage.role,
    query,
    input,
    output: Object.keys(scores).length,
    cached,
  };
}
