/**
 * The inputs every evaluation command reads and checks before the first query: the queries and
 * qrels files, the pipelines (`name=expression`, an alias name, or an expression) and which of
 * them is the baseline.
 */
import { readFile } from 'node:fs/promises';
import { parseQrels, parseQueries, type Query } from '../eval/files.js';
import type { Qrels } from '../eval/metrics.js';

export interface PipelineSpec {
  /** Shown in tables and reports, and names the run file. */
  name: string;
  pipeline: string;
}

export interface JudgedQueries {
  /** The queries that have judgements, in the queries file's order. */
  queries: Query[];
  qrels: Qrels;
  texts: Map<string, string>;
  /** Judged queries missing from the queries file (they score 0). */
  missing: string[];
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(
      `${what} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Both texts; when a read fails, the error names every file that failed, in argument order
 * (not whichever read failed first, which varies from run to run).
 */
async function readBoth(
  first: Promise<string>,
  second: Promise<string>,
): Promise<[string, string]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'fulfilled' && b.status === 'fulfilled') return [a.value, b.value];
  const failed = [a, b].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  const errors = failed.map((r) => r.reason as Error);
  if (errors.length === 1) throw errors[0]!;
  throw new Error(errors.map((error) => error.message).join('; '), { cause: errors[0] });
}

/** Reads and parses both files; throws naming the file and line of the first problem. */
export async function loadJudgedQueries(
  queriesPath: string,
  qrelsPath: string,
): Promise<JudgedQueries> {
  const [queriesText, qrelsText] = await readBoth(
    readText(queriesPath, '--queries'),
    readText(qrelsPath, '--qrels'),
  );
  const all = parseQueries(queriesText, queriesPath);
  const qrels = parseQrels(qrelsText, qrelsPath);
  if (qrels.size === 0) throw new Error(`--qrels ${qrelsPath}: no judgements`);
  const queries = all.filter((query) => qrels.has(query.id));
  if (queries.length === 0)
    throw new Error(
      `no query of ${queriesPath} has judgements in ${qrelsPath} (are the ids the same?)`,
    );
  const asked = new Set(queries.map((query) => query.id));
  const missing = [...qrels.keys()].filter((id) => !asked.has(id));
  return { queries, qrels, texts: new Map(queries.map((q) => [q.id, q.text])), missing };
}

const NAMED = /^([A-Za-z0-9_.-]+)\s*=\s*(.+)$/s;

/**
 * One `--pipeline` value: `name=expression` (the pipeline grammar has no `=`), or an alias or
 * expression named by itself.
 *
 * @example parsePipelineArg('fused={bm25, bm25-title}RRF%100') // { name: 'fused', pipeline: '{...}RRF%100' }
 */
export function parsePipelineArg(value: string): PipelineSpec {
  const match = NAMED.exec(value.trim());
  if (match) return { name: match[1]!, pipeline: match[2]!.trim() };
  const pipeline = value.trim();
  if (pipeline === '') throw new Error('--pipeline: empty');
  return { name: pipeline, pipeline };
}

/** Every `--pipeline`, names unique. */
export function parsePipelineArgs(values: readonly string[]): PipelineSpec[] {
  const specs = values.map(parsePipelineArg);
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.name))
      throw new Error(`--pipeline: the name ${spec.name} is used twice (write name=expression)`);
    seen.add(spec.name);
  }
  return specs;
}

/** The baseline's index: a pipeline name, or its position from 1; the first by default. */
export function baselineIndex(
  specs: readonly PipelineSpec[],
  baseline: string | undefined,
): number {
  if (baseline === undefined) return 0;
  const byName = specs.findIndex((spec) => spec.name === baseline);
  if (byName >= 0) return byName;
  const position = Number(baseline);
  if (Number.isInteger(position) && position >= 1 && position <= specs.length) return position - 1;
  throw new Error(
    `--baseline ${baseline}: not one of the pipelines (${specs.map((s) => s.name).join(', ')}) nor a position 1..${specs.length}`,
  );
}
