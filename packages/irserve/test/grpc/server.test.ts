import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_SERVICES } from '../helpers/app.js';
import { RecordingSearch } from '../helpers/engines.js';
import {
  capturingLogger,
  grpcInstance,
  rawClient,
  statusOf,
  type GrpcInstance,
  type RawClient,
} from './helpers.js';

const KEY = 'grpc-secret';
let server: GrpcInstance;
let client: RawClient;
const log = capturingLogger();

async function corpusDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-grpc-'));
  const docs = [
    { id: 'd1', title: 'First', text: 'hello world' },
    { id: 'd2', text: 'second doc' },
  ];
  await writeFile(join(dir, 'docs.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  await mkdir(join(dir, 'img'));
  await writeFile(join(dir, 'img', 'd1.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await mkdir(join(dir, 'frames', 'd1'), { recursive: true });
  await writeFile(join(dir, 'frames', 'd1', '0.jpg'), 'f0');
  await writeFile(join(dir, 'frames', 'd1', '1.jpg'), 'frame1');
  return dir;
}

beforeAll(async () => {
  const dir = await corpusDir();
  server = await grpcInstance(
    {
      services: [
        ...BASIC_SERVICES,
        { name: 'sum', engine: 'SumFuse' },
        {
          name: 'slow',
          engine: 'SleepSearch',
          config: { delay_ms: 300 },
          batch_size: 1,
          max_wait_time: 0,
          max_queue: 1,
          cache: -1,
        },
      ],
      collections: [
        {
          name: 'docs',
          default_view: 'text',
          views: {
            text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } },
            image: {
              kind: 'bytes',
              source: { source: 'local_path', path_template: join(dir, 'img/{id}.png') },
            },
            frames: {
              kind: 'bytes',
              source: {
                source: 'local_path',
                path_glob: '{id}/*.jpg',
                base_dir: join(dir, 'frames'),
              },
            },
          },
        },
      ],
      max_limit: 5000,
    },
    { apiKey: KEY, maxMessageMb: 1, logger: log.logger },
  );
  client = await rawClient(server.grpcPort, 4);
});

afterAll(async () => {
  client.close();
  await server.app.close();
});

const call = (rpc: string, message: Record<string, unknown>) =>
  client.call(rpc, message, { key: KEY }).then(({ response }) => response);

describe('every RPC of routir.v1.Routir', () => {
  it('Ping answers without credentials', async () => {
    const { response } = await client.call('Ping', {});
    expect(response).toEqual({ status: 'pong' });
  });

  it('Avail lists roles, views, score kinds and its own port; /avail advertises grpc_port', async () => {
    const avail = await call('Avail', {});
    expect(avail.grpc_port).toBe(server.grpcPort);
    const services = avail.services as Record<string, { items: string[] }>;
    expect(services.search!.items).toContain('const');
    expect(services.score!.items).toEqual(['overlap', 'bytesize']);
    expect(services.fuse!.items).toEqual(expect.arrayContaining(['sum', 'RRF']));
    expect(services.decompose_query!.items).toEqual(['split']);
    expect(Object.keys(services).sort()).toEqual(['decompose_query', 'fuse', 'score', 'search']);
    expect(avail.score_view_kinds).toEqual({ overlap: 'text', bytesize: 'bytes' });
    expect(avail.content_views).toMatchObject({
      docs: { views: { text: 'text', image: 'bytes', frames: 'bytes' }, default: 'text' },
    });
  });

  it('Search returns the same scores as REST, and extra fields reach the engine', async () => {
    const answer = await call('Search', { service: 'const', query: 'q', limit: 3 });
    expect(answer).toMatchObject({
      query: 'q',
      service: 'const',
      scores: { doc0: 3, doc1: 2, doc2: 1 },
    });
    expect(typeof answer.timestamp).toBe('number');
    RecordingSearch.batches.length = 0;
    await call('Search', {
      service: 'recording',
      query: 'x',
      subset: 'train',
      extras: { fields: { lang: { stringValue: 'de' }, k: { numberValue: 7 } } },
    });
    expect(RecordingSearch.batches.flat()[0]).toMatchObject({
      query: 'x',
      subset: 'train',
      lang: 'de',
      k: 7,
      limit: 1000,
    });
  });

  it('Score scores text passages and meta counts them', async () => {
    const answer = await call('Score', {
      service: 'overlap',
      query: 'hello world',
      passages: [{ text: 'hello there' }, { text: 'hello world' }],
    });
    expect(answer).toMatchObject({ scores: [1, 2], meta: { n_passages: 2 }, service: 'overlap' });
  });

  it('Score takes bytes passages for a bytes engine (RoutIR rejects them)', async () => {
    const answer = await call('Score', {
      service: 'bytesize',
      query: 'q',
      passages: [
        { bytes: { parts: [Buffer.from('abc')] } },
        { bytes: { parts: [Buffer.from('ab'), Buffer.alloc(10)] } },
      ],
    });
    expect(answer.scores).toEqual([3, 12]);
  });

  it('Score refuses passages of the wrong kind or with no value', async () => {
    const wrongKind = await statusOf(
      call('Score', { service: 'bytesize', query: 'q', passages: [{ text: 'abc' }] }),
    );
    expect(wrongKind.code).toBe(status.INVALID_ARGUMENT);
    expect(wrongKind.details).toMatch(/passages\[0\].*bytes/);
    const empty = await statusOf(call('Score', { service: 'overlap', query: 'q', passages: [{}] }));
    expect(empty.code).toBe(status.INVALID_ARGUMENT);
    expect(empty.details).toMatch(/passages\[0\]: no value set/);
  });

  it('Content returns text with title, and bytes views as data parts with their types', async () => {
    const text = await call('Content', { collection: 'docs', id: 'd1' });
    expect(text).toMatchObject({
      content: 'text',
      text: 'hello world',
      title: 'First',
      view: 'text',
      kind: 'text',
    });
    const image = await call('Content', { collection: 'docs', id: 'd1', view: 'image' });
    expect(image.content).toBe('data');
    const parts = (image.data as { parts: Buffer[] }).parts;
    expect([...parts[0]!]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(image.mimes).toEqual(['image/png']);
    const frames = await call('Content', { collection: 'docs', id: 'd1', view: 'frames' });
    const frameParts = (frames.data as { parts: Buffer[] }).parts.map((p) => p.toString());
    expect(frameParts).toEqual(['f0', 'frame1']);
  });

  it('Fuse merges rankings with a fuse service', async () => {
    const answer = await call('Fuse', {
      service: 'sum',
      query: 'q',
      scores: [{ scores: { a: 1, b: 2 } }, { scores: { a: 3 } }],
    });
    expect(answer).toMatchObject({ service: 'sum', scores: { a: 4, b: 2 } });
  });

  it('DecomposeQuery returns the sub-queries', async () => {
    const answer = await call('DecomposeQuery', { service: 'split', query: 'a b c', limit: 2 });
    expect(answer).toMatchObject({ service: 'split', queries: ['a', 'b'] });
  });

  it('Pipeline runs a pipeline expression', async () => {
    const answer = await call('Pipeline', { pipeline: 'const%2', query: 'q' });
    expect(answer.scores).toEqual({ doc0: 2, doc1: 1 });
    expect(answer.service).toBe('const');
  });
});

describe('status mapping from the error catalog', () => {
  it('unknown service, collection, view or document: NOT_FOUND', async () => {
    for (const [rpc, message] of [
      ['Search', { service: 'nope', query: 'q' }],
      ['Score', { service: 'nope', query: 'q', passages: [] }],
      ['Content', { collection: 'nope', id: 'd1' }],
      ['Content', { collection: 'docs', id: 'd1', view: 'nope' }],
      ['Content', { collection: 'docs', id: 'missing' }],
    ] as const) {
      const error = await statusOf(call(rpc, message));
      expect(error.code, `${rpc} ${JSON.stringify(message)}`).toBe(status.NOT_FOUND);
      expect(error.metadata.get('x-irserve-error-code')[0]).toMatch(/^ERR_\w+_NOT_FOUND$/);
    }
  });

  it('bad request: INVALID_ARGUMENT, naming the field', async () => {
    const empty = await statusOf(call('Search', { service: '', query: 'q' }));
    expect(empty.code).toBe(status.INVALID_ARGUMENT);
    expect(empty.details).toMatch(/^service:/);
    const big = await statusOf(call('Search', { service: 'const', query: 'q', limit: 10_000 }));
    expect(big.code).toBe(status.INVALID_ARGUMENT);
    expect(big.details).toMatch(/max_limit/);
    const syntax = await statusOf(call('Pipeline', { pipeline: 'const >>', query: 'q' }));
    expect(syntax.code).toBe(status.INVALID_ARGUMENT);
  });

  it('an engine failure is INTERNAL, never OK with empty scores', async () => {
    for (const service of ['failing', 'wrong']) {
      const error = await statusOf(call('Search', { service, query: 'q' }));
      expect(error.code).toBe(status.INTERNAL);
      expect(error.metadata.get('x-irserve-error-code')[0]).toBe('ERR_ENGINE');
    }
  });

  it('a full queue: RESOURCE_EXHAUSTED with retry-after', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => call('Search', { service: 'slow', query: `q${i}` })),
    );
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    const error = (rejected[0] as PromiseRejectedResult).reason as {
      code: number;
      metadata: { get(k: string): unknown[] };
    };
    expect(error.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error.metadata.get('retry-after')[0]).toBe('1');
  });

  it('a message over the size limit: RESOURCE_EXHAUSTED', async () => {
    const error = await statusOf(
      call('Score', {
        service: 'overlap',
        query: 'q',
        passages: [{ text: 'x'.repeat(2 * 1024 * 1024) }],
      }),
    );
    expect(error.code).toBe(status.RESOURCE_EXHAUSTED);
    const fits = await call('Score', {
      service: 'overlap',
      query: 'q',
      passages: [{ text: 'x'.repeat(512 * 1024) }],
    });
    expect(fits.scores).toEqual([0]);
  });
});

describe('auth and request ids', () => {
  it('every RPC but Ping needs the bearer key: UNAUTHENTICATED', async () => {
    for (const rpc of [
      'Avail',
      'Search',
      'Score',
      'Content',
      'Pipeline',
      'Fuse',
      'DecomposeQuery',
    ]) {
      const missing = await statusOf(client.call(rpc, {}));
      expect(missing.code, rpc).toBe(status.UNAUTHENTICATED);
      const wrong = await statusOf(client.call(rpc, {}, { key: 'wrong' }));
      expect(wrong.code, rpc).toBe(status.UNAUTHENTICATED);
    }
  });

  it('echoes a given x-request-id, makes one otherwise, and logs it', async () => {
    const given = await client.call('Ping', {}, { requestId: 'trace-42' });
    expect(given.metadata.get('x-request-id')[0]).toBe('trace-42');
    const made = await client.call('Ping', {});
    expect(made.metadata.get('x-request-id')[0]).toMatch(/^[0-9a-f-]{36}$/);
    const line = log.lines.find((l) => l.reqId === 'trace-42');
    expect(line).toMatchObject({ rpc: 'Ping', status: 'OK', msg: 'grpc request' });
  });
});
