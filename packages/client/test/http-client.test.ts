/** The HTTP client against a real irserve server on loopback: every route, auth and errors. */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  HttpClient,
  IrserveClientError,
  type PipelineResponse,
  type Ranked,
  type SearchResponse,
} from '@irserve/client';
import { KEY, NUMERIC_RANKING, NUMERIC_SCORES, PNG, startWorld, type World } from './world.js';

let world: World;
let client: HttpClient;

beforeAll(async () => {
  world = await startWorld();
  client = new HttpClient({ baseUrl: world.baseUrl, apiKey: KEY, timeoutMs: 10_000 });
});
afterAll(() => world.close());

async function failure(promise: Promise<unknown>): Promise<IrserveClientError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IrserveClientError);
  return error as IrserveClientError;
}

describe('HttpClient: every route', () => {
  it('ping, health and avail', async () => {
    expect(await client.ping()).toEqual({ status: 'pong' });
    expect((await client.health()).status).toBe('ok');
    const avail = await client.avail();
    expect(avail.search).toEqual(expect.arrayContaining(['const', 'slow']));
    expect(avail.collection.images).toEqual({ views: { image: 'bytes' }, default: 'image' });
    expect(avail.grpc_port).toBe(Number(world.grpcTarget.split(':')[1]));
  });

  it('search, with extra fields reaching the engine', async () => {
    const result = await client.search({
      service: 'const',
      query: 'q',
      limit: 3,
      instruction: 'x',
    });
    expectTypeOf(result).toEqualTypeOf<Ranked<SearchResponse>>();
    expect(Object.keys(result.scores)).toHaveLength(3);
    expect(result).toMatchObject({ service: 'const', query: 'q', processed: true });
    // Every field the engine receives is in the cache key: the same request is a hit, one
    // without the instruction is not.
    const again = { service: 'const', query: 'q', limit: 3, instruction: 'x' };
    expect((await client.search(again)).cached).toBe(true);
    expect((await client.search({ service: 'const', query: 'q', limit: 3 })).cached).toBe(false);
  });

  it('score, fuse and decomposeQuery', async () => {
    const scored = await client.score({
      service: 'overlap',
      query: 'a b',
      passages: ['a', 'c', 'a b'],
    });
    expect(scored.scores).toHaveLength(3);
    expect(scored.meta.n_passages).toBe(3);
    const fused = await client.fuse({
      service: 'RRF',
      query: 'q',
      scores: [{ a: 2, b: 1 }, { b: 5 }],
    });
    expect(Object.keys(fused.scores).sort()).toEqual(['a', 'b']);
    const parts = await client.decomposeQuery({ service: 'split', query: 'wing flutter' });
    expect(parts.queries.length).toBeGreaterThan(0);
  });

  it('pipeline with explain', async () => {
    const result = await client.pipeline({
      pipeline: '{const, const}RRF%5',
      query: 'q',
      explain: true,
    });
    expectTypeOf(result).toEqualTypeOf<Ranked<PipelineResponse>>();
    expect(Object.keys(result.scores)).toHaveLength(5);
    expect(result.explain?.stages.map((stage) => stage.role)).toContain('merge');
  });

  it('content: text, bytes as base64 parts, and raw bytes', async () => {
    const text = await client.content({ collection: 'docs', id: 'd1' });
    expect(text).toMatchObject({ kind: 'text', text: 'wing flutter at speed', title: 'Wings' });
    const image = await client.content({ collection: 'images', id: 'logo' });
    expect(image.data?.[0]).toEqual({ data: PNG.toString('base64'), mime: 'image/png' });
    const raw = await client.contentBytes({ collection: 'images', id: 'logo' });
    expect(raw.contentType).toBe('image/png');
    expect(Buffer.from(raw.bytes).equals(PNG)).toBe(true);
    const rawText = await client.contentBytes({ collection: 'docs', id: 'd2' });
    expect(new TextDecoder().decode(rawText.bytes)).toContain('heat transfer');
  });

  it('batch', async () => {
    const { responses } = await client.batch({
      requests: [
        { endpoint: 'search', body: { service: 'const', query: 'q', limit: 1 } },
        { endpoint: 'search', body: { service: 'nope', query: 'q' } },
      ],
    });
    expect(responses.map((r) => r.status)).toEqual([200, 400]);
  });
});

// The ordering trap: JSON.parse of {"1341": 4.5, "643": 4.42, ...} gives an object whose keys
// enumerate 9, 10, 53, 358, 643, 749, 1341: the best document last.
describe('HttpClient: ranked results with numeric document ids', () => {
  const ids = (answer: { ranked: { id: string }[] }) => answer.ranked.map((doc) => doc.id);

  it('search and pipeline keep the wire envelope and add the ranking', async () => {
    const search = await client.search({ service: 'numeric', query: 'q' });
    expect(search.scores).toEqual(NUMERIC_SCORES);
    expect(Object.keys(search.scores)[0]).toBe('9');
    expect(ids(search)).toEqual(NUMERIC_RANKING);
    expect(search.ranked[0]).toEqual({ id: '1341', score: 4.5, rank: 1 });
    expect(search.ranked.map((doc) => doc.rank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const { ranked: _, ...wire } = search;
    expect(Object.keys(wire).sort()).toEqual(
      ['cached', 'processed', 'query', 'scores', 'service', 'timestamp'].sort(),
    );
    const pipeline = await client.pipeline({ pipeline: 'numeric%6', query: 'q' });
    expect(ids(pipeline)).toEqual(NUMERIC_RANKING.slice(0, 6));
  });

  it('fuse and batch bodies too', async () => {
    const fused = await client.fuse({
      service: 'ScoreFusion',
      query: 'q',
      scores: [NUMERIC_SCORES],
    });
    expect(ids(fused)).toEqual(NUMERIC_RANKING);
    const { responses } = await client.batch({
      requests: [
        { endpoint: 'search', body: { service: 'numeric', query: 'q' } },
        { endpoint: 'score', body: { service: 'overlap', query: 'a', passages: ['a'] } },
      ],
    });
    expect(ids(responses[0]!.body as { ranked: { id: string }[] })).toEqual(NUMERIC_RANKING);
    expect(responses[1]!.body.ranked).toBeUndefined();
  });
});

describe('HttpClient: errors carry the server code', () => {
  it('unknown service, with status and request id', async () => {
    const error = await failure(
      client.search({ service: 'nope', query: 'q' }, { requestId: 'req-123' }),
    );
    expect(error).toMatchObject({
      code: 'ERR_SERVICE_NOT_FOUND',
      status: 400,
      requestId: 'req-123',
    });
    expect(error.message).toMatch(/nope/);
  });

  it('pipeline syntax errors keep their details', async () => {
    const error = await failure(client.pipeline({ pipeline: 'const >> >>', query: 'q' }));
    expect(error.code).toBe('ERR_PIPELINE_SYNTAX');
    expect(error.details.column).toEqual(expect.any(Number));
  });

  it('a missing or wrong key is ERR_UNAUTHORIZED; ping needs none', async () => {
    const anonymous = new HttpClient({ baseUrl: world.baseUrl });
    expect(await anonymous.ping()).toEqual({ status: 'pong' });
    expect(await failure(anonymous.avail())).toMatchObject({
      code: 'ERR_UNAUTHORIZED',
      status: 401,
    });
    const wrong = new HttpClient({ baseUrl: world.baseUrl, apiKey: 'wrong' });
    expect((await failure(wrong.search({ service: 'const', query: 'q' }))).code).toBe(
      'ERR_UNAUTHORIZED',
    );
  });

  it("hostile and malformed values are the server's 400s, not client crashes", async () => {
    const bad = [
      client.search({ service: 'const', query: 'q', limit: -1 }),
      client.search({ service: 'const', query: 'q', limit: '5' as unknown as number }),
      client.search({ service: '', query: 'q' }),
      client.content({ collection: 'images', id: '../../etc/passwd' }),
      client.score({ service: 'overlap', query: 'q', passages: 'x' as unknown as string[] }),
    ];
    for (const call of bad) expect((await failure(call)).status).toBeGreaterThanOrEqual(400);
    const missing = await failure(client.contentBytes({ collection: 'docs', id: 'none' }));
    expect(missing.code).toBe('ERR_DOC_NOT_FOUND');
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => new HttpClient({ baseUrl: 'grpc://x:1' })).toThrow(/http/);
    expect(() => new HttpClient({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
  });
});

describe('HttpClient: deadlines and cancellation', () => {
  it('a call past its deadline fails with ERR_TIMEOUT', async () => {
    const started = Date.now();
    const error = await failure(client.search({ service: 'slow', query: 'q' }, { timeoutMs: 100 }));
    expect(error.code).toBe('ERR_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('an AbortSignal cancels the call with ERR_ABORTED', async () => {
    const controller = new AbortController();
    const call = client.search({ service: 'slow', query: 'q2' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 50);
    const error = await failure(call);
    expect(error.code).toBe('ERR_ABORTED');
    const already = AbortSignal.abort();
    expect((await failure(client.ping({ signal: already }))).code).toBe('ERR_ABORTED');
  });

  it('a closed port is ERR_NETWORK', async () => {
    const dead = new HttpClient({ baseUrl: 'http://127.0.0.1:9', retry: { retries: 0 } });
    expect((await failure(dead.ping())).code).toBe('ERR_NETWORK');
  });
});
