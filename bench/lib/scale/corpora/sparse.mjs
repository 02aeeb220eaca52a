// An encoded corpus of SPLADE-like passage vectors (bench/lib/splade-corpus.mjs: about 120
// non-zero terms of a 30,000-token vocabulary per passage, passages about topics of 250
// passages each) in irserve-build-sparse-index's input format, and query vectors.
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { seeded } from '../../random.mjs';
import { spladeCorpus, vectorJson, vectorOf } from '../../splade-corpus.mjs';

/**
 * Writes `size` passages (`{"id": ..., "vector": {...}}` lines, three passages per document)
 * and `queries` query vectors (a JSON array) to `dir`; returns their paths.
 */
export async function writeSparseCorpus({ dir, size, queries, seed = 1 }) {
  const random = seeded(seed);
  const model = spladeCorpus({ random, topics: Math.max(1, Math.round(size / 250)) });
  const sources = new Set(Array.from({ length: queries }, () => Math.floor(random() * size)));
  const picked = [];
  const corpus = join(dir, 'encoded.jsonl');
  const out = createWriteStream(corpus);
  for (let i = 0; i < size; i++) {
    const weights = model.passageWeights();
    if (sources.has(i)) picked.push(vectorOf(weights));
    const line = `{"id":"doc${Math.floor(i / 3)}::${i % 3}","vector":${vectorJson(weights)}}\n`;
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  const vectors = Array.from({ length: queries }, (_, q) =>
    model.queryVector(picked[q % picked.length]),
  );
  const queriesPath = join(dir, 'sparse-queries.json');
  await writeFile(queriesPath, JSON.stringify(vectors));
  return { corpus, queries: queriesPath };
}
