/**
 * The in-process SPLADE encoder on a tiny real masked-LM ONNX model (test/fixtures/tiny-splade,
 * written by make-splade.py): pooling checked against a reference computed here from the raw
 * logits, padding invariance, max_terms, and an LSR service that encodes queries with it.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionPool } from '@irserve/onnx';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { engineContext } from 'irserve/testing';
import { buildSparseIndex } from '../../src/build/build-index.js';
import { OnnxSpladeEncoder } from '../../src/encoders/onnx-splade.js';
import { post, startApp } from '../helpers/app.js';

const MODEL = fileURLToPath(new URL('../fixtures/tiny-splade', import.meta.url));
const silent = pino({ level: 'silent' });
const context = engineContext();

const TEXTS = [
  'what is neural retrieval',
  'how do i cook pasta',
  'the quick brown fox jump over the lazy dog and the cat',
  'search engine rank',
];

/** SPLADE from the raw logits, written out plainly. */
async function reference(text: string): Promise<Record<string, number>> {
  const pool = new SessionPool();
  const lease = await pool.acquire(MODEL);
  try {
    const batch = lease.tokenizer.encodeBatch([text], { maxLength: 512 });
    const { logits } = await lease.session.run(batch, ['logits']);
    const [, length, vocab] = logits!.dims as number[];
    const out: Record<string, number> = {};
    for (let v = 0; v < vocab!; v++) {
      let best = 0;
      for (let t = 0; t < length!; t++)
        best = Math.max(best, Math.log1p(Math.max(0, logits!.data[t * vocab! + v]!)));
      const token = lease.tokenizer.idToken(v);
      if (best > 0 && token !== undefined) out[token] = Math.fround(best);
    }
    return out;
  } finally {
    await lease.release();
  }
}

describe('ONNX SPLADE encoder', () => {
  let encoder: OnnxSpladeEncoder;

  beforeAll(async () => {
    encoder = await OnnxSpladeEncoder.open({
      folder: MODEL,
      maxLength: undefined,
      maxTerms: undefined,
      context,
    });
  });
  afterAll(async () => {
    await encoder?.close();
  });

  it('pools log1p(relu(logits)) by max over the real tokens, independent of padding', async () => {
    const alone = await Promise.all(TEXTS.map((text) => encoder.encode([text], 'passage')));
    const batched = await encoder.encode(TEXTS, 'passage');
    for (let i = 0; i < TEXTS.length; i++) {
      const expected = await reference(TEXTS[i]!);
      expect(Object.keys(alone[i]![0]!).sort()).toEqual(Object.keys(expected).sort());
      for (const [token, weight] of Object.entries(expected)) {
        expect(alone[i]![0]![token]).toBeCloseTo(weight, 5);
        expect(batched[i]![token]).toBeCloseTo(weight, 4);
      }
    }
  });

  it('keeps the max_terms highest weights of a query, never of a passage', async () => {
    const limited = await OnnxSpladeEncoder.open({
      folder: MODEL,
      maxLength: undefined,
      maxTerms: 5,
      context,
    });
    try {
      const [query] = await limited.encode([TEXTS[0]!], 'query');
      const [passage] = await limited.encode([TEXTS[0]!], 'passage');
      expect(Object.keys(query!)).toHaveLength(5);
      const top = Object.values(passage!)
        .sort((a, b) => b - a)
        .slice(0, 5);
      expect(Object.values(query!).sort((a, b) => b - a)).toEqual(top);
    } finally {
      await limited.close();
    }
  });

  it('refuses a model without masked-LM logits', async () => {
    const folder = fileURLToPath(
      new URL('../../../onnx/test/fixtures/models/tiny-bert', import.meta.url),
    );
    await expect(
      OnnxSpladeEncoder.open({ folder, maxLength: undefined, maxTerms: undefined, context }),
    ).rejects.toThrow(/needs masked-LM logits/);
  });
});

describe('LSR with the in-process encoder', () => {
  let dir: string;
  let app: App;
  let vectors: Record<string, number>[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-onnx-'));
    const encoder = await OnnxSpladeEncoder.open({
      folder: MODEL,
      maxLength: undefined,
      maxTerms: undefined,
      context,
    });
    vectors = await encoder.encode(TEXTS, 'passage');
    await encoder.close();
    const lines = vectors.map((vector, i) => JSON.stringify({ id: `doc${i}`, vector }));
    await writeFile(join(dir, 'encoded.jsonl'), lines.join('\n'));
    await buildSparseIndex({
      input: join(dir, 'encoded.jsonl'),
      outputDir: join(dir, 'index'),
      logger: silent,
    });
    app = await startApp(
      {
        services: [
          {
            name: 'splade',
            engine: 'LSR',
            config: { index_path: 'index', model_name: MODEL, max_length: 64, max_terms: 40 },
          },
        ],
      },
      dir,
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('encodes the query in process and scores it as the impact formula says', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'splade',
      query: TEXTS[1],
      limit: 4,
    });
    expect(status).toBe(200);
    const encoder = await OnnxSpladeEncoder.open({
      folder: MODEL,
      maxLength: 64,
      maxTerms: 40,
      context,
    });
    const [query] = await encoder.encode([TEXTS[1]!], 'query');
    await encoder.close();
    const expected = vectors
      .map((vector, i) => {
        let score = 0;
        for (const [token, w] of Object.entries(query!))
          if (vector[token] !== undefined)
            score += Math.trunc(w * 50) * Math.trunc(vector[token] * 50);
        return [`doc${i}`, score] as const;
      })
      .filter(([, score]) => score > 0)
      .sort((a, b) => b[1] - a[1]);
    expect(Object.entries(body.scores)).toEqual(expected);
  });

  it("serves TEI's /embed_sparse: the model's weights by vocabulary index, queries as queries", async () => {
    const { status, body } = await post(app, '/embed_sparse', {
      inputs: [TEXTS[0], TEXTS[2]],
    });
    expect(status).toBe(200);
    const pool = new SessionPool();
    const lease = await pool.acquire(MODEL);
    try {
      for (const [i, text] of [TEXTS[0]!, TEXTS[2]!].entries()) {
        const expected = await reference(text);
        const got = body[i] as { index: number; value: number }[];
        expect(got.map(({ index }) => index)).toEqual(
          [...got.map(({ index }) => index)].sort((a, b) => a - b),
        );
        expect(
          Object.fromEntries(
            got.map(({ index, value }) => [lease.tokenizer.idToken(index), value]),
          ),
        ).toEqual(
          Object.fromEntries(
            Object.entries(expected).map(([token, w]) => [token, expect.closeTo(w, 4)]),
          ),
        );
      }
    } finally {
      await lease.release();
    }
    const query = await post(app, '/embed_sparse', { inputs: TEXTS[0], prompt_name: 'query' });
    expect(query.status).toBe(200);
    expect(query.body[0]).toHaveLength(40); // max_terms keeps the query's 40 highest weights
    const bad = await post(app, '/embed_sparse', { inputs: 7 });
    expect(bad.status).toBe(422);
  });

  it('scores passages with the same model', async () => {
    const { status, body } = await post(app, '/score', {
      service: 'splade',
      query: TEXTS[0],
      passages: [TEXTS[0], TEXTS[1]],
    });
    expect(status).toBe(200);
    expect(body.scores[0]).toBeGreaterThan(body.scores[1]);
  });

  it('refuses to start when the index holds tokens the model does not know', async () => {
    await writeFile(
      join(dir, 'foreign.jsonl'),
      JSON.stringify({ id: 'x', vector: { 'not-a-token': 1 } }),
    );
    await buildSparseIndex({
      input: join(dir, 'foreign.jsonl'),
      outputDir: join(dir, 'foreign'),
      logger: silent,
    });
    await expect(
      startApp(
        {
          services: [
            { name: 's', engine: 'LSR', config: { index_path: 'foreign', model_name: MODEL } },
          ],
        },
        dir,
      ),
    ).rejects.toThrow(
      /1 of the index's 1 tokens \("not-a-token"\) are not in the vocabulary of ONNX model/,
    );
  });
});
