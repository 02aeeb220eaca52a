import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRemote, json, postJson, until } from '../federation/helpers.js';
import {
  capturingLogger,
  grpcInstance,
  rawClient,
  statusOf,
  type GrpcInstance,
} from './helpers.js';

const KEY = 'remote-key';
const fast = { max_wait_time: 0.001 };
const opened: { close(): unknown }[] = [];
const track = <T extends GrpcInstance>(i: T): T => {
  opened.push(i.app);
  return i;
};
const remoteLog = capturingLogger();
let remote: GrpcInstance;
let restOnly: GrpcInstance;

async function collection() {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-grpc-relay-'));
  await writeFile(
    join(dir, 'docs.jsonl'),
    JSON.stringify({ id: 'd1', text: 'hello world' }) + '\n',
  );
  await mkdir(join(dir, 'img'));
  await writeFile(join(dir, 'img', 'd1.png'), Buffer.from([1, 2, 3]));
  return {
    name: 'docs',
    default_view: 'text',
    views: {
      text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } },
      image: {
        kind: 'bytes',
        source: { source: 'local_path', path_template: join(dir, 'img/{id}.png') },
      },
    },
  };
}

beforeAll(async () => {
  remote = track(
    await grpcInstance(
      {
        services: [
          { name: 'const1', engine: 'ConstSearch', ...fast },
          { name: 'bytesize', engine: 'ByteSizeScore', ...fast },
          { name: 'split', engine: 'SplitDecomposer', ...fast },
          { name: 'sum', engine: 'SumFuse' },
          { name: 'sleepy', engine: 'SleepSearch', config: { delay_ms: 1000 }, cache: -1 },
          {
            name: 'busy',
            engine: 'SleepSearch',
            config: { delay_ms: 50 },
            batch_size: 1,
            max_wait_time: 0,
            max_queue: 1,
            cache: -1,
          },
        ],
        collections: [await collection()],
      },
      { apiKey: KEY, logger: remoteLog.logger },
    ),
  );
  restOnly = track(
    await grpcInstance(
      { services: [{ name: 'const2', engine: 'ConstSearch', ...fast }] },
      { grpc: false },
    ),
  );
});

afterAll(async () => {
  await Promise.all(opened.map((thing) => thing.close()));
});

type Health = { server_imports: { transport?: string; state: string; last_error?: string }[] };
const health = async (url: string) => (await (await fetch(`${url}/health`)).json()) as Health;

async function front(entry: Record<string, unknown>, options: { grpc?: boolean } = {}) {
  const log = capturingLogger();
  const instance = track(
    await grpcInstance(
      { server_imports: [entry] },
      { logger: log.logger, grpc: options.grpc ?? false },
    ),
  );
  return { ...instance, log };
}

describe('relay transports', () => {
  it('"grpc" with grpc_endpoint relays every role, bytes both ways, and forwards the request id', async () => {
    const f = await front({
      endpoint: remote.url,
      grpc_endpoint: `grpc://127.0.0.1:${remote.grpcPort}`,
      transport: 'grpc',
      api_key: KEY,
      retries: 0,
    });
    expect((await health(f.url)).server_imports[0]).toMatchObject({
      transport: 'grpc',
      state: 'up',
    });
    const search = await fetch(`${f.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'trace-relay-1' },
      body: JSON.stringify({ service: 'const1', query: 'q', limit: 2 }),
    });
    expect(((await search.json()) as { scores: unknown }).scores).toEqual({ doc0: 2, doc1: 1 });
    expect(remoteLog.lines.find((l) => l.reqId === 'trace-relay-1')).toMatchObject({
      rpc: 'Search',
    });
    const score = await postJson(f.url, '/score', {
      service: 'bytesize',
      query: 'q',
      passages: [[Buffer.from('abcd').toString('base64')]],
    });
    expect(score.body.scores).toEqual([4]);
    const fused = await postJson(f.url, '/fuse', {
      service: 'sum',
      query: 'q',
      scores: [{ a: 1 }, { a: 2 }],
    });
    expect(fused.body.scores).toEqual({ a: 3 });
    const parts = await postJson(f.url, '/decompose_query', { service: 'split', query: 'a b' });
    expect(parts.body.queries).toEqual(['a', 'b']);
    const text = await postJson(f.url, '/content', { collection: 'docs', id: 'd1' });
    expect(text.body).toMatchObject({ text: 'hello world', view: 'text' });
    const image = await postJson(f.url, '/content', {
      collection: 'docs',
      id: 'd1',
      view: 'image',
    });
    expect(image.body).toMatchObject({
      kind: 'bytes',
      data: [{ data: 'AQID', mime: 'image/png' }],
    });
    const missing = await postJson(f.url, '/content', { collection: 'docs', id: 'nope' });
    expect(missing.body.code).toBe('ERR_DOC_NOT_FOUND');
  });

  it('"grpc" without grpc_endpoint uses the advertised port; "rest" uses HTTP', async () => {
    const viaGrpc = await front({ endpoint: remote.url, transport: 'grpc', api_key: KEY });
    expect((await health(viaGrpc.url)).server_imports[0]).toMatchObject({ transport: 'grpc' });
    const viaRest = await front({ endpoint: remote.url, transport: 'rest', api_key: KEY });
    expect((await health(viaRest.url)).server_imports[0]).toMatchObject({ transport: 'rest' });
    for (const f of [viaGrpc, viaRest]) {
      const { body } = await postJson(f.url, '/search', {
        service: 'const1',
        query: 'q',
        limit: 1,
      });
      expect(body.scores).toEqual({ doc0: 1 });
    }
  });

  it('"grpc" against a remote that offers no gRPC is an error, not a silent REST', async () => {
    const f = await front({ endpoint: restOnly.url, transport: 'grpc' });
    const [entry] = (await health(f.url)).server_imports;
    expect(entry).toMatchObject({ state: 'pending' });
    expect(entry!.last_error).toMatch(/does not advertise grpc_port/);
  });

  it('"auto" picks gRPC when advertised and REST when not', async () => {
    const withGrpc = await front({ endpoint: remote.url, api_key: KEY });
    expect((await health(withGrpc.url)).server_imports[0]).toMatchObject({ transport: 'grpc' });
    const withoutGrpc = await front(restOnly.url as unknown as Record<string, unknown>);
    expect((await health(withoutGrpc.url)).server_imports[0]).toMatchObject({ transport: 'rest' });
    const { body } = await postJson(withoutGrpc.url, '/search', {
      service: 'const2',
      query: 'q',
      limit: 1,
    });
    expect(body.scores).toEqual({ doc0: 1 });
  });

  it('"auto" falls back to REST with a warning when the advertised gRPC port does not answer', async () => {
    const fake = await fakeRemote((req, _body, res) =>
      req.url === '/avail'
        ? json(res, 200, { search: ['x'], score: [], grpc_port: 1 })
        : json(res, 200, {
            query: 'q',
            scores: { d: 1 },
            service: 'x',
            cached: false,
            timestamp: 1,
          }),
    );
    opened.push({ close: () => fake.server.close() });
    const f = await front({ endpoint: fake.url, retries: 0 });
    expect((await health(f.url)).server_imports[0]).toMatchObject({
      transport: 'rest',
      state: 'up',
    });
    expect(
      f.log.lines.some((l) => l.msg === 'gRPC transport not available: falling back to REST'),
    ).toBe(true);
    const { body } = await postJson(f.url, '/search', { service: 'x', query: 'q' });
    expect(body.scores).toEqual({ d: 1 });
  });

  it('"auto" does not fall back when gRPC refuses the key', async () => {
    const requests: string[] = [];
    const fake = await fakeRemote((req, _body, res) => {
      requests.push(req.url ?? '');
      json(res, 200, { search: ['x'], score: [], grpc_port: remote.grpcPort });
    });
    opened.push({ close: () => fake.server.close() });
    const f = await front({ endpoint: fake.url, api_key: 'wrong' });
    const [entry] = (await health(f.url)).server_imports;
    expect(entry).toMatchObject({ state: 'pending', services: 0 });
    expect(entry!.last_error).toMatch(/authentication failed/);
    expect(entry!.transport).toBeUndefined();
    expect(requests).toEqual(['/avail']);
  });
});

describe('deadlines, retries and upstream statuses through a gRPC relay', () => {
  it('the relay timeout is the deadline: DEADLINE_EXCEEDED over the front gRPC, 504 over REST', async () => {
    const f = await front(
      { endpoint: remote.url, transport: 'grpc', api_key: KEY, timeout: 0.2, retries: 0 },
      { grpc: true },
    );
    const rest = await postJson(f.url, '/search', { service: 'sleepy', query: 'q1' });
    expect([rest.status, rest.body.code]).toEqual([504, 'ERR_UPSTREAM_TIMEOUT']);
    const client = await rawClient(f.grpcPort);
    const error = await statusOf(client.call('Search', { service: 'sleepy', query: 'q2' }));
    client.close();
    expect(error.code).toBe(status.DEADLINE_EXCEEDED);
  });

  it('retries RESOURCE_EXHAUSTED with backoff, as REST retries 503', async () => {
    const f = await front({ endpoint: remote.url, transport: 'grpc', api_key: KEY, retries: 6 });
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        postJson(f.url, '/search', { service: 'busy', query: `b${i}` }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  });

  it('a remote gone after discovery: UNAVAILABLE over the front gRPC, failing fast', async () => {
    const gone = await grpcInstance({
      services: [{ name: 'gone', engine: 'ConstSearch', ...fast }],
    });
    const f = await front({ endpoint: gone.url, transport: 'grpc', retries: 1 }, { grpc: true });
    await until(async () => (await health(f.url)).server_imports[0]?.state === 'up');
    await gone.app.close();
    const client = await rawClient(f.grpcPort);
    const error = await statusOf(client.call('Search', { service: 'gone', query: 'q' }));
    expect(error.code).toBe(status.UNAVAILABLE);
    const started = Date.now();
    const again = await statusOf(client.call('Search', { service: 'gone', query: 'q2' }));
    client.close();
    expect(again.code).toBe(status.UNAVAILABLE);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
