import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from 'irserve';
import { bagOfWords, post, startTestApp } from 'irserve/testing';
import { Dense } from '../../src/index.js';
import { DIM, denseWorld, type DenseWorld } from './world.js';

const startApp = async (config: Record<string, unknown>, dir: string) =>
  (await startTestApp(config, { engines: [Dense], dir })).app;

describe('Dense engine', () => {
  let world: DenseWorld;
  let app: App;

  beforeAll(async () => {
    world = await denseWorld();
    app = await startApp(world.config({ id_to_subset_mapping: 'subsets.tsv' }), world.dir);
  });
  afterAll(async () => {
    await app?.close();
    await world?.api.close();
  });

  it('finds the document that shares the query words, best first', async () => {
    const { status, body } = await post(app, '/search', {
      service: 'dense',
      query: 'shock wave on a wedge',
      limit: 3,
    });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores as Record<string, number>);
    expect(ids[0]).toBe('d3');
    expect(ids).toHaveLength(3);
  });

  it('embeds the queries of concurrent requests in one API call, with the key as bearer', async () => {
    const before = world.api.calls.length;
    const queries = ['jet engine thrust', 'flutter of wings', 'heat transfer hypersonic'];
    const replies = await Promise.all(
      queries.map((query) => post(app, '/search', { service: 'dense', query, limit: 1 })),
    );
    expect(replies.map((r) => Object.keys(r.body.scores)[0])).toEqual(['d1', 'd4', 'd5']);
    const calls = world.api.calls.slice(before);
    expect(calls).toHaveLength(1);
    expect(new Set(calls[0]!.input)).toEqual(new Set(queries));
    expect(calls[0]!.authorization).toBe('Bearer sk-test-secret');
  });

  it('restricts results to a subset from id_to_subset_mapping', async () => {
    const { body } = await post(app, '/search', {
      service: 'dense',
      query: 'boundary layer',
      limit: 10,
      subset: 'odd',
    });
    expect(Object.keys(body.scores).sort()).toEqual(['d1', 'd3', 'd5']);
    const unknown = await post(app, '/search', {
      service: 'dense',
      query: 'x',
      limit: 1,
      subset: 'nope',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/unknown subset "nope"/);
  });

  it('scores passages by the inner product of their embeddings, in passage order', async () => {
    const passages = ['jet engines thrust', 'laminar flow', ''];
    const { status, body } = await post(app, '/score', {
      service: 'dense',
      query: 'jet thrust',
      passages,
    });
    expect(status).toBe(200);
    const query = bagOfWords('jet thrust', DIM);
    const expected = passages.map((p) => {
      const v = bagOfWords(p, DIM);
      return query.reduce((sum, q, i) => sum + q * v[i]!, 0);
    });
    (body.scores as number[]).forEach((score, i) => expect(score).toBeCloseTo(expected[i]!, 5));
  });

  it('serves a hybrid pipeline with BM25', async () => {
    const { status, body } = await post(app, '/pipeline', {
      pipeline: '{bm25, dense}RRF%3 >> dense',
      query: 'supersonic shock wave',
      collection: 'aero',
    });
    expect(status).toBe(200);
    const ids = Object.keys(body.scores as Record<string, number>);
    expect(ids[0]).toBe('d3');
    expect(ids.length).toBeLessThanOrEqual(3);
  });
});

describe('Dense engine failures', () => {
  let world: DenseWorld;
  beforeAll(async () => {
    world = await denseWorld();
  });
  afterAll(async () => {
    await world?.api.close();
  });

  it('maps an API outage to 502 naming the provider, never echoing the key', async () => {
    const app = await startApp(world.config({ retries: 0 }), world.dir);
    try {
      world.api.failWith(503);
      const { status, body } = await post(app, '/search', {
        service: 'dense',
        query: 'jet',
        limit: 2,
      });
      expect(status).toBe(502);
      expect(body.code).toBe('ERR_UPSTREAM');
      expect(JSON.stringify(body)).not.toContain('sk-test-secret');
    } finally {
      world.api.failWith(undefined);
      await app.close();
    }
  });

  it('stops retrying the API once the request has timed out', async () => {
    const app = await startApp(world.config({ retries: 3 }), world.dir);
    try {
      world.api.failWith(503);
      const before = world.api.calls.length;
      const search = { service: 'dense', query: 'jet thrust', limit: 2, timeout: 0.03 };
      const { status } = await post(app, '/search', search);
      expect(status).toBe(504);
      // Four attempts would be made with the retries' backoff (0.05-0.1 s, then 0.1-0.2, 0.2-0.4).
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(world.api.calls.length - before).toBeLessThanOrEqual(1);
    } finally {
      world.api.failWith(undefined);
      await app.close();
    }
  });

  it('explains a model whose dimension differs from the index', async () => {
    const app = await startApp(world.config(), world.dir);
    try {
      world.api.setDim(DIM * 2);
      const { status, body } = await post(app, '/search', {
        service: 'dense',
        query: 'jet',
        limit: 2,
      });
      expect(status).toBe(500);
      expect(body.error).toMatch(/128-dimensional vectors, but the index .* holds 64-dimensional/);
    } finally {
      world.api.setDim(DIM);
      await app.close();
    }
  });

  it.each([
    [{ index_path: undefined }, /config\.index_path/],
    [{ embedding_base_url: 'not a url' }, /config\.embedding_base_url/],
    [{ k_scale: 0.5 }, /config\.k_scale/],
    [{ kscale: 2 }, /config\.kscale: unknown key \(did you mean "k_scale"\?\)/],
    [{ query_prompt: 'no placeholder' }, /config\.query_prompt/],
    [{ threads: -1 }, /config\.threads/],
    [{ threads: 1.5 }, /config\.threads/],
    [{ memory_budget: '4 lots' }, /config\.memory_budget/],
  ])('rejects a bad config %j naming the field', async (dense, message) => {
    await expect(startApp(world.config(dense), world.dir)).rejects.toThrow(message);
  });

  it('reads the vectors from the index files under a small memory_budget, with the same answers', async () => {
    const app = await startApp(world.config(), world.dir);
    const paged = await startApp(world.config({ memory_budget: 1 }), world.dir);
    try {
      for (const query of ['shock wave on a wedge', 'jet engine thrust']) {
        const payload = { service: 'dense', query, limit: 6 };
        const expected = await post(app, '/search', payload);
        const actual = await post(paged, '/search', payload);
        expect(Object.entries(actual.body.scores)).toEqual(Object.entries(expected.body.scores));
      }
      const health = JSON.stringify((await paged.http.inject({ url: '/health' })).json());
      expect(health).toMatch(/"storage":"paged","resident_bytes":\d+,"memory_budget_bytes":1/);
      const memory = JSON.stringify((await app.http.inject({ url: '/health' })).json());
      expect(memory).toMatch(/"storage":"memory"/);
    } finally {
      await paged.close();
      await app.close();
    }
  });

  it('answers a search that reads a damaged page of a paged index with an error, not results', async () => {
    const damaged = join(world.dir, 'damaged-index');
    await cp(world.indexDir, damaged, { recursive: true });
    const vectors = await readFile(join(damaged, 'vectors.f32'));
    vectors[7] = vectors[7]! ^ 0xff;
    await writeFile(join(damaged, 'vectors.f32'), vectors);
    const paged = await startApp(
      world.config({ index_path: damaged, memory_budget: 1 }),
      world.dir,
    );
    try {
      const reply = await post(paged, '/search', { service: 'dense', query: 'jet', limit: 3 });
      expect(reply.status).toBe(500);
      expect(reply.body.scores).toBeUndefined();
      expect(reply.body.error).toMatch(
        /vectors\.f32: bytes 0-1536 do not match their page checksum/,
      );
    } finally {
      await paged.close();
    }
    // Loaded into memory, the whole file is checked at the start.
    await expect(startApp(world.config({ index_path: damaged }), world.dir)).rejects.toThrow(
      /checksum mismatch in vectors\.f32/,
    );
  });

  it('fails the start with the path of a missing index', async () => {
    await expect(
      startApp(world.config({ index_path: join(world.dir, 'no-such-index') }), world.dir),
    ).rejects.toThrow(/no-such-index/);
  });

  it('rejects byte passages with a 400', async () => {
    const app = await startApp(world.config(), world.dir);
    try {
      const reply = await app.http.inject({
        method: 'POST',
        url: '/score',
        payload: { service: 'dense', query: 'q', passages: [{ bytes: ['AAEC'] }] },
      });
      expect(reply.statusCode).toBe(400);
    } finally {
      await app.close();
    }
  });
});
