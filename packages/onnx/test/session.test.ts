import { afterAll, describe, expect, it } from 'vitest';
import { SessionPool, TextEncoder, sessionPoolFor } from '@irserve/onnx';
import type { EngineContext } from 'irserve/plugin';
import { engineContext } from 'irserve/testing';
import { TINY_BERT, TINY_CROSS_ENCODER, TINY_MLM, TINY_YES_NO, maxDiff } from './helpers.js';

const pool = new SessionPool();
afterAll(() => expect(pool.size).toBe(0));

describe('SessionPool', () => {
  it('shares one session per folder and options, and frees it on the last release', async () => {
    const [a, b] = await Promise.all([pool.acquire(TINY_BERT), pool.acquire(`${TINY_BERT}/`)]);
    const c = await pool.acquire(TINY_BERT, { intra_op_threads: 1 });
    expect(a.session).toBe(b.session);
    expect(c.session).not.toBe(a.session);
    expect(pool.size).toBe(2);
    await a.release();
    await a.release(); // twice is harmless
    expect(pool.size).toBe(2);
    await b.release();
    await c.release();
    expect(pool.size).toBe(0);
  });

  it('an app shares its pool through context.resources; a bare context gets its own', () => {
    const context = engineContext();
    expect(sessionPoolFor(context)).toBe(sessionPoolFor(context));
    expect(sessionPoolFor(engineContext({ resources: context.resources }))).toBe(
      sessionPoolFor(context),
    );
    // Outside an app (no shared map), each call makes its own pool.
    const { resources: _shared, ...rest } = engineContext();
    const bare: EngineContext = rest;
    expect(sessionPoolFor(bare)).not.toBe(sessionPoolFor(bare));
  });

  it('runs a graph and hands back raw named outputs: masked-LM logits [batch, seq, vocab]', async () => {
    const lease = await pool.acquire(TINY_MLM);
    try {
      const batch = lease.tokenizer.encodeBatch(['the cat', 'hello world the dog'], {
        maxLength: 32,
      });
      const { logits } = await lease.session.run(batch, ['logits']);
      expect(logits!.dims).toEqual([2, batch.length, 128]);
      const raw = await lease.session.runRaw(batch);
      expect(Object.keys(raw)).toEqual(['logits']);
      expect(raw.logits!.type).toBe('float32');
    } finally {
      await lease.release();
    }
  });
});

describe('TextEncoder', () => {
  it('a batch gives the vectors of one-by-one runs (padding and chunking change nothing)', async () => {
    const texts = [
      'the cat',
      'hello world, the quick brown fox jumps over the lazy dog',
      'a',
      'what is neural retrieval?',
    ];
    const together = new TextEncoder(await pool.acquire(TINY_BERT), { batchSize: 3 });
    const alone = new TextEncoder(await pool.acquire(TINY_BERT), { batchSize: 1 });
    try {
      const batched = await together.embed(texts);
      const single = await Promise.all(texts.map(async (t) => (await alone.embed([t]))[0]!));
      expect(batched).toHaveLength(4);
      batched.forEach((vector, i) => expect(maxDiff(vector, single[i]!)).toBeLessThan(1e-5));
      expect(together.dimension).toBe(32);
      expect(together.normalize).toBe(true);
      const norm = Math.hypot(...batched[0]!);
      expect(norm).toBeCloseTo(1, 5);
    } finally {
      await together.close();
      await alone.close();
    }
  });

  it('each pooling gives a different vector from the same states', async () => {
    const names = ['cls', 'mean', 'max'] as const;
    const vectors = [];
    for (const pooling of names) {
      const encoder = new TextEncoder(await pool.acquire(TINY_BERT), { pooling, normalize: false });
      vectors.push((await encoder.embed(['the quick brown fox']))[0]!);
      await encoder.close();
    }
    expect(maxDiff(vectors[0]!, vectors[1]!)).toBeGreaterThan(1e-3);
    expect(maxDiff(vectors[1]!, vectors[2]!)).toBeGreaterThan(1e-3);
  });

  it('last-token pooling of a left-padded decoder gives the one-by-one vectors', async () => {
    const encoder = new TextEncoder(await pool.acquire(TINY_YES_NO), {
      pooling: 'last_token',
      output: 'logits',
    });
    try {
      const texts = ['yes', 'the cat query', 'no'];
      const batched = await encoder.embed(texts);
      for (const [i, text] of texts.entries())
        expect(maxDiff(batched[i]!, (await encoder.embed([text]))[0]!)).toBeLessThan(1e-4);
    } finally {
      await encoder.close();
    }
  });

  it('a pooling that does not fit the graph output is an ERR_CONFIG at start-up', async () => {
    const lease = await pool.acquire(TINY_CROSS_ENCODER);
    expect(() => new TextEncoder(lease, { pooling: 'mean' })).toThrow(
      /pooling "mean" needs a \[batch, sequence, hidden\] output, but logits has shape \[batch, 1\]/,
    );
    expect(() => new TextEncoder(lease, { output: 'pooled' })).toThrow(
      /no output pooled \(it has logits\)/,
    );
    await lease.release();
  });

  it('an empty list embeds nothing; long texts are cut, never an error', async () => {
    const encoder = new TextEncoder(await pool.acquire(TINY_BERT), { maxLength: 8 });
    try {
      expect(await encoder.embed([])).toEqual([]);
      const [vector] = await encoder.embed(['the dog '.repeat(5000)]);
      expect(vector).toHaveLength(32);
    } finally {
      await encoder.close();
    }
  });
});
