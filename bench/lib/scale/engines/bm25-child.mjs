// One BM25 measurement in a process of its own (so that its peak RSS is its own):
//
//   node bm25-child.mjs build <spec.json>   builds the index (as a server's first start does)
//   node bm25-child.mjs serve <spec.json>   reopens it, then times queries at each depth
//
// spec: { corpus, dir, queries, ks, config }. Prints one JSON line.
import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { bm25Over } from '../../bm25-engine.mjs';
import { residentBytes, timeQueries } from '../measure.mjs';

const [command, specPath] = process.argv.slice(2);
const spec = JSON.parse(await readFile(specPath, 'utf8'));
const logger = pino({ level: command === 'build' ? 'info' : 'warn' }, process.stderr);
const over = await bm25Over({ corpus: spec.corpus, dir: spec.dir, logger, config: spec.config });
const started = performance.now();
const engine = over.open();
await engine.start();
const startSeconds = (performance.now() - started) / 1000;
if (command === 'build') {
  console.log(JSON.stringify({ seconds: startSeconds }));
} else {
  const queries = JSON.parse(await readFile(spec.queries, 'utf8'));
  const top = {};
  for (const k of spec.ks) {
    const search = (query) => engine.searchBatch([{ query, limit: k }]);
    top[k] = await timeQueries(search, queries);
  }
  const health = engine.health?.() ?? {};
  console.log(JSON.stringify({ startSeconds, residentBytes: residentBytes(), health, top }));
}
await engine.close();
