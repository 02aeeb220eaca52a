/**
 * Effectiveness on the bundled Cranfield collection (examples/quickstart), read through the
 * real collections module, evaluated with the eval metrics. Reference (Cranfield README,
 * flat title+text, Lucene stop words, Porter, k1 0.9 b 0.4): nDCG@10 0.352, R@100 0.724.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { collectionConfigSchema, createCollections } from '../../src/collections/index.js';
import { BM25 } from '../../src/engines/bm25/index.js';
import { parseQrels, parseQueries } from '../../src/eval/files.js';
import { evaluate } from '../../src/eval/metrics.js';

const quickstart = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/quickstart');

describe('Cranfield effectiveness (default settings)', () => {
  let dir: string;
  let close: () => Promise<void>;
  let engine: BM25;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bm25-cranfield-'));
    const config = JSON.parse(await readFile(join(quickstart, 'config.json'), 'utf8'));
    const collection = structuredClone(config.collections[0]);
    collection.views.text.source.cache_dir = dir; // keep the offset map out of the repo
    const logger = pino({ level: 'silent' });
    const { catalog, content } = await createCollections(
      [collectionConfigSchema.parse(collection)],
      {
        logger,
        cacheDir: dir,
        interactive: false,
        baseDir: quickstart,
      },
    );
    close = () => content.close();
    engine = new BM25({
      name: 'bm25',
      config: { collection: 'cranfield' },
      context: { collections: catalog, logger, cacheDir: dir, configDir: dir, interactive: false },
    });
    await engine.start();
  });

  afterAll(async () => {
    await engine?.close();
    await close?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('reaches the reference nDCG@10 (>= 0.34) and R@100', async () => {
    const data = join(quickstart, 'data/cranfield');
    const queries = parseQueries(await readFile(join(data, 'queries.jsonl'), 'utf8'));
    const qrels = parseQrels(await readFile(join(data, 'qrels.tsv'), 'utf8'));
    const results = await engine.searchBatch(queries.map((q) => ({ query: q.text, limit: 1000 })));
    const run = new Map(queries.map((q, i) => [q.id, results[i]!]));
    const { mean, queries: n } = evaluate(run, qrels);
    expect(n).toBe(225);
    expect(mean['nDCG@10']).toBeGreaterThanOrEqual(0.34);
    expect(mean['R@100']).toBeGreaterThanOrEqual(0.7);
  });
});
