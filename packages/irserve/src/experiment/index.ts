/**
 * `irserve/experiment`: evaluation and experiments from code (docs/experiments.md): the query
 * and qrels readers, measures named as ir_measures names them with trec_eval's definitions,
 * the paired tests, the analysis `irserve experiment` prints and its HTML report. Nothing here
 * imports Node APIs, so it runs in browsers as well.
 *
 * @example
 * import { evaluate, parseMeasures, parseQrels } from 'irserve/experiment';
 * evaluate(run, parseQrels(text), parseMeasures(['nDCG@10', 'P(rel=2)@5'])).mean;
 */
export { formatTrecRun, parseQrels, parseQueries, type Query } from '../eval/files.js';
export { parseMeasure, parseMeasures, type MeasureSpec } from '../eval/measure-name.js';
export { computeMeasure, RankedQuery } from '../eval/measures.js';
export {
  DEFAULT_MEASURE_NAMES,
  evaluate,
  rankDocuments,
  type Evaluation,
  type Judgements,
  type Qrels,
  type Run,
} from '../eval/metrics.js';
export {
  analyseExperiment,
  type AnalysisOptions,
  type Comparison,
  type ExperimentResult,
  type PipelineRun,
} from './analyse.js';
export { experimentReportHtml, type ReportOptions } from './report-html.js';
export {
  cohensD,
  confidenceInterval,
  holm,
  pairedTTest,
  randomisationTest,
  winsLossesTies,
} from './stats.js';
export { formatExperiment } from './table.js';
