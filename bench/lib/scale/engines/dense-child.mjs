// One dense serving measurement in a process of its own: the Dense engine opens the index with
// the given config (in memory, or paged under memory_budget), its queries' embeddings being the
// generated query vectors (an embedder that looks them up, so the index is what is measured),
// then times queries at each depth.
//
//   node dense-child.mjs <spec.json>   spec: { index, queries, dim, ks, config, work, seconds }
//
// Prints one JSON line.
import { readFile } from 'node:fs/promises';
import { engineContext, residentBytes, timeQueries } from '../measure.mjs';

const { Dense } = await import(
  new URL('../../../../packages/dense/dist/index.js', import.meta.url).href
);
const spec = JSON.parse(await readFile(process.argv[2], 'utf8'));
const raw = await readFile(spec.queries);
const vectors = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
const count = vectors.length / spec.dim;
/** Query `q<n>` is the n-th generated vector. */
const embedder = {
  dimension: spec.dim,
  label: 'pre-encoded queries',
  embed: async (texts) =>
    texts.map((text) => {
      const q = Number(text.slice(1));
      return vectors.slice(q * spec.dim, (q + 1) * spec.dim);
    }),
  close: async () => undefined,
};
const context = await engineContext(spec.work);
const started = performance.now();
const engine = new Dense(
  {
    name: 'dense',
    config: {
      index_path: spec.index,
      embedding_base_url: 'http://pre-encoded.invalid/v1',
      embedding_model_name: 'pre-encoded',
      k_scale: 1,
      ...spec.config,
    },
    context,
  },
  { embedder: async () => embedder },
);
await engine.start();
const startSeconds = (performance.now() - started) / 1000;
const queries = Array.from({ length: count }, (_, q) => `q${q}`);
const top = {};
for (const k of spec.ks) {
  const search = (query) => engine.searchBatch([{ query, limit: k }]);
  top[k] = await timeQueries(search, queries, { maxSeconds: spec.seconds });
}
const health = engine.health();
console.log(JSON.stringify({ startSeconds, residentBytes: residentBytes(), health, top }));
await engine.close();
