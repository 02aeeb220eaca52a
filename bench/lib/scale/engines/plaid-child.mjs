// One PLAID serving measurement in a process of its own: the PLAIDX engine opens the index with
// the given config (in memory, or under memory_budget when the engine has it), then times
// pre-encoded queries (`query_vectors`, so the index is what is measured) at each depth.
//
//   node plaid-child.mjs <spec.json>   spec: { index, queries, ks, config, work, seconds }
//
// Prints one JSON line.
import { readFile } from 'node:fs/promises';
import { engineContext, residentBytes, timeQueries } from '../measure.mjs';
import { QUERY_TOKENS, TOKEN_DIM } from '../corpora/tokens.mjs';

const { PLAIDX } = await import(
  new URL('../../../../packages/plaidx/dist/index.js', import.meta.url).href
);
const spec = JSON.parse(await readFile(process.argv[2], 'utf8'));
const raw = await readFile(spec.queries);
const floats = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
const perQuery = QUERY_TOKENS * TOKEN_DIM;
const queries = Array.from({ length: floats.length / perQuery }, (_, q) =>
  Array.from({ length: QUERY_TOKENS }, (_, t) =>
    Array.from(floats.subarray(q * perQuery + t * TOKEN_DIM, q * perQuery + (t + 1) * TOKEN_DIM)),
  ),
);
const context = await engineContext(spec.work);
const started = performance.now();
const engine = new PLAIDX({
  name: 'plaidx',
  config: { index_path: spec.index, ...spec.config },
  context,
});
await engine.start();
const startSeconds = (performance.now() - started) / 1000;
const top = {};
for (const k of spec.ks) {
  const search = (vectors) =>
    engine.searchBatch([{ query: 'pre-encoded', query_vectors: vectors, limit: k }]);
  top[k] = await timeQueries(search, queries, { maxSeconds: spec.seconds });
}
const health = engine.health?.() ?? {};
console.log(JSON.stringify({ startSeconds, residentBytes: residentBytes(), health, top }));
await engine.close();
