// One learned-sparse serving measurement in a process of its own: the LSR engine opens the
// index with the given config (search strategy, memory budget), answers as soon as it can
// (`startSeconds`), then, once prepared (bounds derived, checksums checked), times pre-encoded
// queries at each depth.
//
//   node sparse-child.mjs <spec.json>   spec: { index, queries, ks, config }. Prints one JSON line.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { engineContext, residentBytes, timeQueries } from '../measure.mjs';

const { LSR } = await import(
  new URL('../../../../packages/sparse/dist/index.js', import.meta.url).href
);
const spec = JSON.parse(await readFile(process.argv[2], 'utf8'));
const context = await engineContext(spec.work);
const started = performance.now();
const engine = new LSR({
  name: 'lsr',
  config: { index_path: spec.index, encoder: 'none', k_scale: 1, ...spec.config },
  context,
});
await engine.start();
const startSeconds = (performance.now() - started) / 1000;
while (engine.health().prepared === 'in progress') await sleep(20);
if (engine.health().prepared !== 'ready')
  throw new Error(`index not prepared: ${JSON.stringify(engine.health())}`);
const preparedSeconds = (performance.now() - started) / 1000;
const queries = JSON.parse(await readFile(spec.queries, 'utf8'));
const top = {};
for (const k of spec.ks) {
  const search = (vector) => engine.searchBatch([{ query: '', query_vector: vector, limit: k }]);
  top[k] = await timeQueries(search, queries);
}
const health = engine.health();
console.log(
  JSON.stringify({ startSeconds, preparedSeconds, residentBytes: residentBytes(), health, top }),
);
await engine.close();
