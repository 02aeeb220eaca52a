// The results of bench/scale.mjs: one JSON file of rows, saved after each engine of each size
// so that a run stopped halfway resumes where it stopped, and the table they make.
import { readFile, writeFile } from 'node:fs/promises';

/** The rows recorded in `path` (none when it does not exist), with `has` and `record`. */
export async function openResults(path) {
  const rows = await readFile(path, 'utf8').then(
    (text) => JSON.parse(text).rows,
    () => [],
  );
  return {
    rows,
    /** Whether `engine` at `size` has its rows (then it is skipped). */
    has: (size, engine) => rows.some((row) => row.size === size && row.engine === engine),
    /** Replaces the rows of `engine` at `size` and saves the file. */
    async record(size, engine, engineRows) {
      const kept = rows.filter((row) => !(row.size === size && row.engine === engine));
      rows.length = 0;
      rows.push(...kept, ...engineRows.map((row) => ({ size, engine, ...row })));
      await writeFile(path, JSON.stringify({ rows }, null, 1) + '\n');
    },
  };
}

const gib = (bytes) => (bytes === undefined ? '' : `${(bytes / 2 ** 30).toFixed(2)}`);
const num = (x, digits = 1) => (x === undefined ? '' : x.toFixed(digits));
const count = (n) => n.toLocaleString('en');

const COLUMNS = [
  ['passages', (r) => count(r.size)],
  ['engine', (r) => r.engine],
  ['strategy / storage', (r) => r.variant],
  ['build s', (r) => num(r.build?.seconds, 0)],
  ['build peak RSS GiB', (r) => gib(r.build?.peakRssBytes)],
  ['index GiB', (r) => gib(r.build?.indexBytes)],
  ['start s', (r) => num(r.startSeconds, 2)],
  ['served RSS GiB', (r) => gib(r.residentBytes)],
  ['p50 ms @10', (r) => num(r.top?.[10]?.p50Ms, 2)],
  ['p99 ms @10', (r) => num(r.top?.[10]?.p99Ms, 2)],
  ['qps @10', (r) => num(r.top?.[10]?.qps, 0)],
  ['p50 ms @1000', (r) => num(r.top?.[1000]?.p50Ms, 2)],
  ['p99 ms @1000', (r) => num(r.top?.[1000]?.p99Ms, 2)],
  ['qps @1000', (r) => num(r.top?.[1000]?.qps, 0)],
];

/** A Markdown table of `rows`, by size, then engine and variant as recorded. */
export function table(rows) {
  const sorted = [...rows].sort((a, b) => a.size - b.size);
  const lines = [
    `| ${COLUMNS.map(([name]) => name).join(' | ')} |`,
    `|${COLUMNS.map(() => ' --- ').join('|')}|`,
    ...sorted.map((row) => `| ${COLUMNS.map(([, cell]) => cell(row)).join(' | ')} |`),
  ];
  return lines.join('\n');
}

/** Per size: BM25's queries/s over Xapian's, at each depth (the target is at least 5x). */
export function xapianRatios(rows) {
  const lines = [];
  for (const size of [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b)) {
    const bm25 = rows.find((r) => r.size === size && r.engine === 'bm25');
    const xapian = rows.find((r) => r.size === size && r.engine === 'xapian');
    if (!bm25 || !xapian) continue;
    const ratio = (k) => (bm25.top[k].qps / xapian.top[k].qps).toFixed(1);
    lines.push(
      `${count(size)} passages: BM25 ${ratio(10)}x Xapian's queries/s at top 10, ${ratio(1000)}x at top 1000`,
    );
  }
  return lines.join('\n');
}
