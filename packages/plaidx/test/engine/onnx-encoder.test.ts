/**
 * The in-process ColBERT encoder on a tiny real ONNX export (test/fixtures/make-colbert-onnx.py
 * wrote it with torch.onnx.export, and the vectors ColBERT's conventions give with the torch
 * model), directly and through the engine's /score and /search.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineContext } from 'irserve/testing';
import { buildPlaidIndex } from '../../src/build/build-plaid.js';
import { memoryShards } from '../../src/build/token-shards.js';
import { onnxColbertEncoder } from '../../src/engine/onnx-encoder.js';
import type { TokenEncoder } from '../../src/engine/token-encoder.js';
import { maxSim } from '../../src/search/maxsim.js';
import { tokenMatrix } from '../../src/search/query.js';
import { FIXTURES } from '../helpers.js';
import { post, startApp } from './app.js';

interface Expected {
  queries: { text: string; vectors: number[][] }[];
  documents: { text: string; vectors: number[][] }[];
}

const CHECKPOINT = `${FIXTURES}colbert-onnx`;
const options = {
  checkpoint: CHECKPOINT,
  batchSize: 2,
  windowSize: 180,
  windowStride: 90,
  threads: 1,
};

describe('ONNX ColBERT encoder', () => {
  let expected: Expected;
  let encoder: TokenEncoder;
  let dir: string;

  beforeAll(async () => {
    expected = JSON.parse(await readFile(`${CHECKPOINT}/expected.json`, 'utf8')) as Expected;
    dir = await mkdtemp(join(tmpdir(), 'plaidx-onnx-'));
    encoder = await onnxColbertEncoder(options, engineContext({ configDir: dir }));
  });
  afterAll(async () => {
    await encoder?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('encodes queries as ColBERT does: marker, [MASK] expansion to query_maxlen, normalised', async () => {
    const got = await encoder.encodeQueries(expected.queries.map((q) => q.text));
    got.forEach((matrix, q) => {
      const want = expected.queries[q]!.vectors;
      expect(matrix.length).toBe(want.length);
      want.flat().forEach((v, i) => expect(matrix.vectors[i]).toBeCloseTo(v, 4));
    });
  });

  it('encodes documents with the document marker and the skip-list applied', async () => {
    const windows = await encoder.encodePassages(expected.documents.map((d) => d.text));
    expect(windows.map((w) => w.passage)).toEqual([0, 1]);
    windows.forEach((window, d) => {
      const want = expected.documents[d]!.vectors;
      expect(window.matrix.length).toBe(want.length);
      want.flat().forEach((v, i) => expect(window.matrix.vectors[i]).toBeCloseTo(v, 4));
    });
  });

  it('serves /score and /search with checkpoint set', async () => {
    const docs = expected.documents;
    const rows = docs.map((d) => d.vectors);
    const indexDir = join(dir, 'index');
    await buildPlaidIndex({
      source: memoryShards([
        {
          features: new Float32Array(rows.flat(2)),
          dim: 8,
          doclens: Int32Array.from(rows.map((r) => r.length)),
          ids: ['fox', 'solar'],
        },
      ]),
      outputDir: indexDir,
      nbits: 4,
      partitions: 4,
    });
    const config = {
      services: [
        {
          name: 'colbert',
          engine: 'PLAIDX',
          config: {
            checkpoint: CHECKPOINT,
            index_path: indexDir,
            mapping_containing_passage_id: false,
            intra_op_threads: 1,
          },
        },
      ],
    };
    const app = await startApp(config, dir);
    try {
      const scored = await post(app, '/score', {
        service: 'colbert',
        query: expected.queries[0]!.text,
        passages: docs.map((d) => d.text),
      });
      expect(scored.status).toBe(200);
      const query = tokenMatrix(expected.queries[0]!.vectors);
      docs.forEach((d, i) => {
        const doc = tokenMatrix(d.vectors);
        expect(scored.body.scores[i]).toBeCloseTo(maxSim(query, doc.vectors, 0, doc.length), 3);
      });
      const [solarQuery] = await encoder.encodeQueries(['solar panel tariffs']);
      const exact = docs.map((d) => {
        const doc = tokenMatrix(d.vectors);
        return maxSim(solarQuery!, doc.vectors, 0, doc.length);
      });
      const found = await post(app, '/search', {
        service: 'colbert',
        query: 'solar panel tariffs',
        limit: 2,
        ncells: 4,
        centroid_score_threshold: -1,
      });
      expect(found.status).toBe(200);
      // The index holds 4-bit residuals: scores are close to, not equal to, exact MaxSim.
      expect(Object.keys(found.body.scores)[0]).toBe(exact[1]! > exact[0]! ? 'solar' : 'fox');
      expect(found.body.scores.solar).toBeCloseTo(exact[1]!, 1);
    } finally {
      await app.close();
    }
  });

  it('knows its output dimension, and the engine refuses to start on an index of another', async () => {
    expect(await encoder.dimension()).toBe(8);
    const indexDir = join(dir, 'index-16');
    const random = (i: number) => Math.sin(i * 12.9898) * 0.5;
    await buildPlaidIndex({
      source: memoryShards([
        {
          features: Float32Array.from({ length: 40 * 16 }, (_, i) => random(i)),
          dim: 16,
          doclens: Int32Array.from([10, 10, 10, 10]),
          ids: ['a', 'b', 'c', 'd'],
        },
      ]),
      outputDir: indexDir,
      nbits: 2,
      partitions: 4,
    });
    const config = {
      services: [
        {
          name: 'colbert',
          engine: 'PLAIDX',
          config: { checkpoint: CHECKPOINT, index_path: indexDir, intra_op_threads: 1 },
        },
      ],
    };
    await expect(startApp(config, dir)).rejects.toThrow(
      /service "colbert": config\.checkpoint \(.*colbert-onnx\) produces 8-dimensional token vectors, but config\.index_path \(.*index-16\) holds 16-dimensional ones/,
    );
  });

  it('refuses a folder without the markers or a 3-D output, naming it', async () => {
    const context = engineContext({ configDir: dir });
    await expect(
      onnxColbertEncoder({ ...options, checkpoint: join(dir, 'nothing-here') }, context),
    ).rejects.toThrow(/nothing-here/);
  });
});
