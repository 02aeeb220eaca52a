/** The gRPC client against a real irserve gRPC server: every RPC, errors, deadlines. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, IrserveClientError } from '@irserve/client';
import { GrpcClient } from '../src/grpc.js';
import { KEY, NUMERIC_RANKING, NUMERIC_SCORES, PNG, startWorld, type World } from './world.js';

let world: World;
let client: GrpcClient;
let http: HttpClient;

beforeAll(async () => {
  world = await startWorld();
  client = new GrpcClient({ target: world.grpcTarget, apiKey: KEY, timeoutMs: 10_000 });
  http = new HttpClient({ baseUrl: world.baseUrl, apiKey: KEY });
});
afterAll(async () => {
  await client.close();
  await world.close();
});

async function failure(promise: Promise<unknown>): Promise<IrserveClientError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IrserveClientError);
  return error as IrserveClientError;
}

describe('GrpcClient', () => {
  it("answers every RPC in the HTTP client's shapes", async () => {
    expect(await client.ping()).toEqual({ status: 'pong' });
    const [grpcAvail, httpAvail] = await Promise.all([client.avail(), http.avail()]);
    expect(grpcAvail.search.sort()).toEqual(httpAvail.search.sort());
    expect(grpcAvail.collection).toEqual(httpAvail.collection);
    const search = await client.search({
      service: 'const',
      query: 'g',
      limit: 4,
      instruction: 'x',
    });
    expect(search).toMatchObject({ service: 'const', query: 'g', processed: true });
    expect(Object.keys(search.scores)).toHaveLength(4);
    const score = await client.score({ service: 'overlap', query: 'a b', passages: ['a', 'z'] });
    expect(score.scores).toHaveLength(2);
    const fuse = await client.fuse({ service: 'RRF', query: 'q', scores: [{ a: 1 }, { b: 2 }] });
    expect(Object.keys(fuse.scores).sort()).toEqual(['a', 'b']);
    expect(
      (await client.decomposeQuery({ service: 'split', query: 'a b' })).queries.length,
    ).toBeGreaterThan(0);
    const pipeline = await client.pipeline({ pipeline: '{const, const}RRF%3', query: 'q' });
    expect(Object.keys(pipeline.scores)).toHaveLength(3);
  });

  it('ranks numeric document ids by score (the wire map enumerates them by value of the id)', async () => {
    const ids = (answer: { ranked: { id: string }[] }) => answer.ranked.map((doc) => doc.id);
    const search = await client.search({ service: 'numeric', query: 'q' });
    expect(search.scores).toEqual(NUMERIC_SCORES);
    expect(ids(search)).toEqual(NUMERIC_RANKING);
    expect(search.ranked[0]).toEqual({ id: '1341', score: 4.5, rank: 1 });
    const pipeline = await client.pipeline({ pipeline: 'numeric%3', query: 'q' });
    expect(ids(pipeline)).toEqual(NUMERIC_RANKING.slice(0, 3));
    const fused = await client.fuse({
      service: 'ScoreFusion',
      query: 'q',
      scores: [NUMERIC_SCORES],
    });
    expect(ids(fused)).toEqual(NUMERIC_RANKING);
  });

  it('serves text and bytes content', async () => {
    expect(await client.content({ collection: 'docs', id: 'd1' })).toMatchObject({
      kind: 'text',
      text: 'wing flutter at speed',
      title: 'Wings',
    });
    const image = await client.content({ collection: 'images', id: 'logo' });
    expect(image.data).toEqual([{ data: PNG.toString('base64'), mime: 'image/png' }]);
    const raw = await client.contentBytes({ collection: 'images', id: 'logo' });
    expect(Buffer.from(raw.bytes).equals(PNG)).toBe(true);
  });

  it("maps failures to the server's codes", async () => {
    expect((await failure(client.search({ service: 'nope', query: 'q' }))).code).toBe(
      'ERR_SERVICE_NOT_FOUND',
    );
    const anonymous = new GrpcClient({ target: world.grpcTarget });
    expect((await failure(anonymous.avail())).code).toBe('ERR_UNAUTHORIZED');
    await anonymous.close();
    expect((await failure(client.pipeline({ pipeline: 'const >>', query: 'q' }))).code).toBe(
      'ERR_PIPELINE_SYNTAX',
    );
  });

  it('refuses what gRPC cannot carry instead of dropping it', async () => {
    expect(
      (await failure(client.pipeline({ pipeline: 'const', query: 'q', explain: true }))).code,
    ).toBe('ERR_NOT_SUPPORTED');
    expect((await failure(client.health())).code).toBe('ERR_NOT_SUPPORTED');
  });

  it('enforces the deadline and the AbortSignal', async () => {
    expect(
      (await failure(client.search({ service: 'slow', query: 'g1' }, { timeoutMs: 100 }))).code,
    ).toBe('ERR_TIMEOUT');
    const controller = new AbortController();
    const call = client.search({ service: 'slow', query: 'g2' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(call)).code).toBe('ERR_ABORTED');
  });

  it('rejects a target with an HTTP scheme and fails fast on a closed port', async () => {
    expect(() => new GrpcClient({ target: 'http://127.0.0.1:1' })).toThrow(/grpc/);
    const dead = new GrpcClient({ target: '127.0.0.1:9', timeoutMs: 3000 });
    expect(['ERR_NETWORK', 'ERR_TIMEOUT']).toContain((await failure(dead.ping())).code);
    await dead.close();
  });
});
