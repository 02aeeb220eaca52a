/**
 * What `irserve experiment --out <dir>` writes: `report.html` (self-contained), `results.json`
 * (everything the report shows), `per-query.csv` (one row per pipeline, query and measure) and
 * `runs/<n>-<name>.trec`, one TREC run per pipeline.
 */
import { access, constants, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatTrecRun } from '../eval/files.js';
import type { Run } from '../eval/metrics.js';
import type { ExperimentResult } from './analyse.js';
import { experimentReportHtml, type ReportOptions } from './report-html.js';

/**
 * Creates `dir` (and `dir/runs`) and checks it can be written, before any query runs: a run
 * should not end in a folder it cannot write.
 */
export async function prepareOutputDir(dir: string): Promise<void> {
  try {
    await mkdir(join(dir, 'runs'), { recursive: true });
    await access(dir, constants.W_OK);
  } catch (error) {
    throw new Error(`--out ${dir}: cannot write there (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/** A file name for a pipeline's run: its position and its name with unsafe characters replaced. */
export function runFileName(index: number, name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return `${index + 1}-${safe || 'pipeline'}.trec`;
}

/** A CSV field, quoted when it needs to be. */
function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** `pipeline,query_id,measure,value`, one row per pipeline, query and measure. */
export function perQueryCsv(result: ExperimentResult): string {
  const lines = ['pipeline,query_id,measure,value'];
  for (const pipeline of result.pipelines)
    for (const measure of result.measures)
      pipeline.perQuery[measure]!.forEach((value, q) =>
        lines.push(
          [pipeline.name, result.queries[q]!.id, measure, String(value)].map(csvField).join(','),
        ),
      );
  return lines.join('\n') + '\n';
}

/** Writes every output into `dir` (see the file comment); returns the paths written. */
export async function writeExperimentOutputs(
  dir: string,
  result: ExperimentResult,
  runs: readonly Run[],
  report: ReportOptions = {},
): Promise<string[]> {
  const files: [string, string][] = [
    ['report.html', experimentReportHtml(result, report)],
    ['results.json', JSON.stringify(result, null, 1) + '\n'],
    ['per-query.csv', perQueryCsv(result)],
    ...runs.map((run, i): [string, string] => [
      join('runs', runFileName(i, result.pipelines[i]!.name)),
      formatTrecRun(run, result.pipelines[i]!.name.replace(/\s+/g, '_')),
    ]),
  ];
  await mkdir(join(dir, 'runs'), { recursive: true });
  for (const [name, text] of files) await writeFile(join(dir, name), text);
  return files.map(([name]) => join(dir, name));
}
