import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  collectionConfig,
  corpus,
  fakeRemote,
  instance,
  json,
  postJson,
  until,
  type Instance,
} from './helpers.js';

const fast = { max_wait_time: 0.001 };
const opened: { close(): unknown }[] = [];
const track = <T extends { close(): unknown }>(thing: T): T => {
  opened.push(thing);
  return thing;
};
const trackInstance = (i: Instance) => {
  track(i.app);
  return i;
};

afterAll(async () => {
  await Promise.all(opened.map((thing) => thing.close()));
});

describe('server_imports across three real instances', () => {
  let front: Instance;
  let remoteA: Instance;
  let remoteB: Instance;
  let remoteDocs: Instance;
  const KEY = 'remote-secret';

  beforeAll(async () => {
    const docPath = await corpus(20);
    remoteA = trackInstance(
      await instance(
        {
          services: [
            { name: 'const1', engine: 'ConstSearch', ...fast },
            { name: 'split', engine: 'SplitDecomposer', ...fast },
          ],
        },
        KEY,
      ),
    );
    remoteB = trackInstance(
      await instance({
        services: [
          { name: 'const2', engine: 'ConstSearch', config: { start: 5 }, ...fast },
          { name: 'const5', engine: 'ConstSearch', config: { start: 5 }, ...fast },
          { name: 'overlap', engine: 'OverlapScore', ...fast },
        ],
      }),
    );
    remoteDocs = trackInstance(
      await instance({ collections: [collectionConfig('docs', docPath)] }),
    );
    front = trackInstance(
      await instance({
        services: [{ name: 'const2', engine: 'ConstSearch', config: { start: 100 }, ...fast }],
        server_imports: [{ endpoint: remoteA.url, api_key: KEY }, remoteB.url, remoteDocs.url],
      }),
    );
  });

  it('lists imported services and collections in /avail beside local ones', async () => {
    const avail = (await (await fetch(`${front.url}/avail`)).json()) as Record<string, unknown>;
    expect(avail.search).toHaveLength(3);
    expect(avail.search).toEqual(expect.arrayContaining(['const2', 'const1', 'const5']));
    expect(avail.score).toEqual(['overlap']);
    expect(avail.decompose_query).toEqual(['split']);
    expect(avail.collection).toEqual({ docs: { views: { text: 'text' }, default: 'text' } });
  });

  it('local names win over imported ones', async () => {
    const { body } = await postJson(front.url, '/search', {
      service: 'const2',
      query: 'q',
      limit: 1,
    });
    expect(body.scores).toEqual({ doc100: 1 });
  });

  it('relays search (with the remote key), score, fuse, decompose and content', async () => {
    expect(
      (await postJson(front.url, '/search', { service: 'const1', query: 'q', limit: 2 })).body
        .scores,
    ).toEqual({ doc0: 2, doc1: 1 });
    expect(
      (
        await postJson(front.url, '/score', {
          service: 'overlap',
          query: 'a b',
          passages: ['a b', 'c'],
        })
      ).body.scores,
    ).toEqual([2, 0]);
    expect(
      (
        await postJson(front.url, '/decompose_query', {
          service: 'split',
          query: 'x y z',
          limit: 2,
        })
      ).body.queries,
    ).toEqual(['x', 'y']);
    const content = await postJson(front.url, '/content', { collection: 'docs', id: 'doc3' });
    expect(content.status).toBe(200);
    expect(content.body.text).toMatch(/document number 3/);
  });

  it('a missing remote document is a 400 with an error in place of text', async () => {
    const content = await postJson(front.url, '/content', { collection: 'docs', id: 'nope' });
    expect(content.status).toBe(400);
    expect(content.body.error).toMatch(/nope/);
    expect(content.body.text).toBeUndefined();
  });

  it('runs a pipeline whose branches live on two remotes and whose rerank content comes from a third', async () => {
    const { status, body } = await postJson(front.url, '/pipeline', {
      pipeline: '{const1, const5}RRF%10 >> overlap',
      collection: 'docs',
      query: 'neural retrieval document',
    });
    expect(status).toBe(200);
    expect(body.service).toBe('overlap');
    expect(Object.keys(body.scores as object)).toHaveLength(10);
    expect(Object.keys(body.scores as object)).toEqual(
      expect.arrayContaining(['doc0', 'doc5', 'doc9']),
    );
  });

  it('does not give stale scores when passages change (relay score cache keys on passages)', async () => {
    const a = await postJson(front.url, '/score', {
      service: 'overlap',
      query: 'x',
      passages: ['x'],
    });
    const b = await postJson(front.url, '/score', {
      service: 'overlap',
      query: 'x',
      passages: ['y', 'x x'],
    });
    expect(a.body.scores).toEqual([1]);
    expect(b.body.scores).toEqual([0, 2]);
  });

  it('reports each import in /health', async () => {
    const health = (await (await fetch(`${front.url}/health`)).json()) as {
      server_imports: { state: string }[];
    };
    expect(health.server_imports.map((i) => i.state)).toEqual(['up', 'up', 'up']);
  });
});

describe('failures of remotes', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((f) => f()));
  });

  it('a remote without the key is not imported, and /health says why', async () => {
    const remote = await instance(
      { services: [{ name: 'secret', engine: 'ConstSearch', ...fast }] },
      'k1',
    );
    const front = await instance({ server_imports: [{ endpoint: remote.url, api_key: 'wrong' }] });
    cleanups.push(
      () => remote.app.close(),
      () => front.app.close(),
    );
    const health = (await (await fetch(`${front.url}/health`)).json()) as {
      status: string;
      server_imports: { state: string; last_error: string }[];
    };
    expect(health.status).toBe('degraded');
    expect(health.server_imports[0]!.last_error).toMatch(/401|token/);
  });

  it('a remote that is down at start-up appears when it answers', async () => {
    const placeholder = await instance({ services: [] });
    const url = placeholder.url;
    await placeholder.app.close();
    const front = await instance({ server_imports: [url] });
    cleanups.push(() => front.app.close());
    expect((await postJson(front.url, '/search', { service: 'late', query: 'q' })).status).toBe(
      400,
    );
    const port = Number(new URL(url).port);
    const late = await (async () => {
      const { testApp } = await import('../helpers/app.js');
      const app = await testApp({ services: [{ name: 'late', engine: 'ConstSearch', ...fast }] });
      await app.listen({ port, host: '127.0.0.1' });
      return app;
    })();
    cleanups.push(() => late.close());
    await until(
      async () =>
        (await postJson(front.url, '/search', { service: 'late', query: 'q', limit: 1 })).status ===
        200,
      20_000,
    );
  });

  it('a remote killed under load fails only its own services, fast, and recovers', async () => {
    const doomed = await instance({
      services: [{ name: 'doomed', engine: 'ConstSearch', cache: -1, ...fast }],
    });
    const front = await instance({
      services: [{ name: 'local', engine: 'ConstSearch', cache: -1, ...fast }],
      server_imports: [doomed.url],
    });
    cleanups.push(() => front.app.close());
    expect(
      (await postJson(front.url, '/search', { service: 'doomed', query: 'q', limit: 1 })).status,
    ).toBe(200);
    const port = Number(new URL(doomed.url).port);
    await doomed.app.close();
    const failed = await postJson(front.url, '/search', {
      service: 'doomed',
      query: 'q2',
      limit: 1,
    });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(/127\.0\.0\.1/);
    const started = Date.now();
    const again = await postJson(front.url, '/search', {
      service: 'doomed',
      query: 'q3',
      limit: 1,
    });
    expect(again.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(1000);
    const locals = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postJson(front.url, '/search', { service: 'local', query: `l${i}`, limit: 1 }),
      ),
    );
    expect(locals.every((r) => r.status === 200)).toBe(true);
    const { testApp } = await import('../helpers/app.js');
    const revived = await testApp({
      services: [{ name: 'doomed', engine: 'ConstSearch', ...fast }],
    });
    await revived.listen({ port, host: '127.0.0.1' });
    cleanups.push(() => revived.close());
    await until(
      async () =>
        (await postJson(front.url, '/search', { service: 'doomed', query: 'q4', limit: 1 }))
          .status === 200,
    );
  });

  it('a slow remote times out with 504', async () => {
    const slow = await fakeRemote((req, _body, res) => {
      if (req.url === '/avail')
        return json(res, 200, {
          search: ['slow'],
          score: [],
          fuse: [],
          decompose_query: [],
          collection: {},
        });
      setTimeout(() => json(res, 200, { scores: {} }), 3000);
    });
    cleanups.push(
      async () => slow.server.closeAllConnections?.(),
      async () => new Promise((r) => slow.server.close(r)),
    );
    const front = await instance({
      server_imports: [{ endpoint: slow.url, timeout: 0.2, retries: 0 }],
    });
    cleanups.push(() => front.app.close());
    const response = await postJson(front.url, '/search', { service: 'slow', query: 'q' });
    expect(response.status).toBe(504);
    expect(response.body.code).toBe('ERR_UPSTREAM_TIMEOUT');
  });

  it('a remote answering garbage gives a clear 502', async () => {
    const garbage = await fakeRemote((req, _body, res) => {
      if (req.url === '/avail')
        return json(res, 200, {
          search: ['junk', 'nojson'],
          score: [],
          fuse: [],
          decompose_query: [],
        });
      if (req.url === '/search' && _body.includes('nojson'))
        return json(res, 200, '<html>not json</html>');
      json(res, 200, { scores: 'lots' });
    });
    cleanups.push(async () => new Promise((r) => garbage.server.close(r)));
    const front = await instance({ server_imports: [garbage.url] });
    cleanups.push(() => front.app.close());
    const malformed = await postJson(front.url, '/search', { service: 'junk', query: 'q' });
    expect(malformed.status).toBe(502);
    expect(malformed.body.error).toMatch(/malformed result/);
    const notJson = await postJson(front.url, '/search', { service: 'nojson', query: 'q' });
    expect(notJson.status).toBe(502);
    expect(notJson.body.error).toMatch(/invalid JSON/);
  });

  it('an import cycle (A imports B, B imports A) does not loop', async () => {
    const { testApp } = await import('../helpers/app.js');
    const { freePort } = await import('../helpers/redis.js');
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await testApp({
      services: [{ name: 'a1', engine: 'ConstSearch', ...fast }],
      server_imports: [`http://127.0.0.1:${portB}`],
    });
    const b = await testApp({
      services: [{ name: 'b1', engine: 'ConstSearch', ...fast }],
      server_imports: [`http://127.0.0.1:${portA}`],
    });
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    await Promise.all([
      a.listen({ port: portA, host: '127.0.0.1' }),
      b.listen({ port: portB, host: '127.0.0.1' }),
    ]);
    const urlA = `http://127.0.0.1:${portA}`;
    await until(
      async () =>
        (await postJson(urlA, '/search', { service: 'b1', query: 'q', limit: 1 })).status === 200,
      40_000,
    );
    expect((await postJson(urlA, '/search', { service: 'a1', query: 'q', limit: 1 })).status).toBe(
      200,
    );
    const looping = await postJson(urlA, '/search', { service: 'nowhere', query: 'q' });
    expect(looping.status).toBe(400);
  });
});

describe('importing a RoutIR server (recorded answers)', () => {
  const recorded = JSON.parse(
    readFileSync(resolve(import.meta.dirname, '../fixtures/routir/responses.json'), 'utf8'),
  ) as Record<string, unknown>;
  let front: Instance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const routir = await fakeRemote((req, body, res) => {
      if (req.url === '/avail') return json(res, 200, recorded.avail);
      if (req.url === '/search') return json(res, 200, recorded.search);
      if (req.url === '/score') return json(res, 200, recorded.score);
      if (req.url === '/content')
        return JSON.parse(body).id === 'nope'
          ? json(res, 400, recorded.content_missing)
          : json(res, 200, recorded.content);
      json(res, 404, { error: 'not found' });
    });
    front = await instance({ server_imports: [routir.url] });
    close = async () => {
      await front.app.close();
      await new Promise((r) => routir.server.close(r));
    };
  });
  afterAll(async () => close());

  it("understands RoutIR's /avail (old `content` list shape)", async () => {
    const avail = (await (await fetch(`${front.url}/avail`)).json()) as Record<string, unknown>;
    expect(avail.search).toEqual(expect.arrayContaining(['const', 'const1', 'sleepy']));
    expect(avail.score).toEqual(['lenscore']);
    expect(avail.collection).toEqual({ docs: { views: { text: 'text' }, default: 'text' } });
  });

  it("understands RoutIR's /search, /score and /content answers", async () => {
    expect(
      (
        await postJson(front.url, '/search', {
          service: 'const',
          query: 'neural retrieval',
          limit: 5,
        })
      ).body.scores,
    ).toEqual({ doc0: 5, doc1: 4, doc2: 3, doc3: 2, doc4: 1 });
    expect(
      (
        await postJson(front.url, '/score', {
          service: 'lenscore',
          query: 'Neural retrieval models',
          passages: ['a', 'b', 'c'],
        })
      ).body.scores,
    ).toEqual([2.2, 0.2, 1.0]);
    const content = await postJson(front.url, '/content', { collection: 'docs', id: 'doc7' });
    expect(content.body).toMatchObject({
      text: expect.stringMatching(/^paper server/),
      title: 'Stone Sparse Dense Passage',
    });
    const missing = await postJson(front.url, '/content', { collection: 'docs', id: 'nope' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/nope/);
  });
});
