import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main.js';

/** What a command printed and its exit code. */
export interface CliRun {
  code: number;
  /** stdout lines joined with newlines. */
  out: string;
  err: string;
}

/**
 * Runs `irserve <argv>` in this process (the tests' sources) and captures its output.
 *
 * @example const { code, out } = await runIrserve(['eval', 'config.json', '--pipeline', 'bm25']);
 */
export async function runIrserve(argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {}, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The bundled quickstart's config and its Cranfield queries and qrels. */
export const QUICKSTART_CONFIG = resolve(
  import.meta.dirname,
  '../../../../examples/quickstart/config.json',
);
const CRANFIELD = resolve(import.meta.dirname, '../../../../examples/quickstart/data/cranfield');

/** The flags that point an evaluation command at Cranfield's judged queries, quietly. */
export const CRANFIELD_FLAGS = [
  ...['--queries', join(CRANFIELD, 'queries.jsonl'), '--qrels', join(CRANFIELD, 'qrels.tsv')],
  ...['--log_level', 'silent'],
];
