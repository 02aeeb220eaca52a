/**
 * A client that leaves a front cancels the work on the remote too: the relay cuts its upstream
 * call (a REST batch once none of its calls is waited for, a gRPC call by cancelling it), the
 * remote sees its own client leave and its engine is told through its signal. A cut of the
 * front's own making never marks the remote unreachable, and no retry follows it.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentService, LookupOptions } from '../../src/collections/types.js';
import { BatchingTransport } from '../../src/federation/batching-transport.js';
import { remoteCollection } from '../../src/federation/remote-collection.js';
import type { BoundRerank } from '../../src/pipeline/bound.js';
import { ContentFetcher } from '../../src/pipeline/content-fetcher.js';
import { RemoteClient, type RemoteCallOptions } from '../../src/federation/remote-client.js';
import type { RemoteTransport } from '../../src/federation/remote-transport.js';
import { AbortScope } from '../../src/util/abort-scope.js';
import { PoliteSlowSearch } from '../faults/fault-engines.js';
import { grpcInstance, type GrpcInstance } from '../grpc/helpers.js';
import { quietLogger } from '../helpers/logger.js';
import { postOverSocket } from '../helpers/post-over-socket.js';
import { fakeRemote, instance, json } from './helpers.js';

const opened: { close(): unknown }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((thing) => thing.close()));
});

const gone = () => new Error('client left');

describe('RemoteClient with a signal', () => {
  it('cuts the call in flight, without a retry and without marking the remote unreachable', async () => {
    let received = 0;
    const stalled = await fakeRemote(() => void received++); // never answers
    opened.push({ close: () => stalled.server.closeAllConnections() });
    opened.push({ close: () => stalled.server.close() });
    const { port } = stalled.server.address() as AddressInfo;
    const client = new RemoteClient({
      endpoint: `http://127.0.0.1:${port}`,
      apiKey: undefined,
      timeoutSeconds: 30,
      retries: 3,
      logger: quietLogger(),
    });
    opened.push(client);
    const controller = new AbortController();
    const call = client.post(
      '/search',
      { service: 's', query: 'q' },
      { signal: controller.signal },
    );
    await waitFor(() => received === 1);
    controller.abort(gone());
    await expect(call).rejects.toThrow('client left');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toBe(1);
    expect(client.unreachableSince).toBeUndefined();
  });
});

/** An inner transport whose batches wait until the test answers them or their signal aborts. */
function heldTransport() {
  const sent: { body: unknown; signal: RemoteCallOptions['signal']; answer(v: unknown): void }[] =
    [];
  const transport: RemoteTransport = {
    endpoint: 'http://held',
    unreachableSince: undefined,
    get: async () => ({}),
    post: (_path, body, options = {}) =>
      new Promise((resolve, reject) => {
        sent.push({ body, signal: options.signal, answer: resolve });
        if (options.signal) (options.signal as AbortScope).add(() => reject(gone()));
      }),
    close: async () => undefined,
  };
  return { transport, sent };
}

describe('BatchingTransport with signals', () => {
  const search = { service: 's', query: 'q', limit: 1 };

  it('a queued call that leaves is not sent', async () => {
    const { transport, sent } = heldTransport();
    const batching = new BatchingTransport(transport, '/batch');
    const leaving = new AbortController();
    const left = batching.post('/search', search, { signal: leaving.signal });
    const stays = batching.post('/search', { ...search, query: 'stays' });
    leaving.abort(gone());
    await expect(left).rejects.toThrow('client left');
    await waitFor(() => sent.length === 1);
    const { requests } = sent[0]!.body as { requests: { body: { query: string } }[] };
    expect(requests.map((r) => r.body.query)).toEqual(['stays']);
    sent[0]!.answer({ responses: [{ status: 200, body: { scores: {} } }] });
    await expect(stays).resolves.toEqual({ scores: {} });
  });

  it('cuts a sent batch only when the last of its callers leaves', async () => {
    const { transport, sent } = heldTransport();
    const batching = new BatchingTransport(transport, '/batch');
    const first = new AbortController();
    const second = new AbortController();
    const a = batching.post('/search', search, { signal: first.signal });
    const b = batching.post('/search', search, { signal: second.signal });
    await waitFor(() => sent.length === 1);
    const batchSignal = sent[0]!.signal as AbortScope;
    first.abort(gone());
    await expect(a).rejects.toThrow('client left');
    expect(batchSignal.aborted).toBe(false);
    second.abort(gone());
    await expect(b).rejects.toThrow('client left');
    expect(batchSignal.aborted).toBe(true);
  });

  it('refuses at once a call whose signal has already aborted', async () => {
    const { transport, sent } = heldTransport();
    const scope = new AbortScope();
    scope.abort(gone());
    const batching = new BatchingTransport(transport, '/batch');
    await expect(batching.post('/search', search, { signal: scope })).rejects.toThrow('left');
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(0);
  });
});

describe('a client that leaves a front', () => {
  let remote: GrpcInstance;
  let viaRest: GrpcInstance;
  let viaGrpc: GrpcInstance;

  beforeAll(async () => {
    const polite = { engine: 'PoliteSlowSearch', config: { delay_ms: 20_000 }, cache: -1 };
    remote = await grpcInstance(
      { services: [{ name: 'polite', ...polite, max_wait_time: 0 }] },
      { engines: [PoliteSlowSearch] },
    );
    opened.push(remote.app);
    viaRest = await grpcInstance({ server_imports: [remote.url] }, { grpc: false });
    opened.push(viaRest.app);
    const grpc = `grpc://127.0.0.1:${remote.grpcPort}`;
    viaGrpc = await grpcInstance(
      { server_imports: [{ endpoint: remote.url, grpc_endpoint: grpc, transport: 'grpc' }] },
      { grpc: false },
    );
    opened.push(viaGrpc.app);
  });

  it.each([
    ['REST (a /batch)', () => viaRest],
    ['gRPC', () => viaGrpc],
  ])('cancels the remote engine’s work through %s', async (_name, front) => {
    const started = PoliteSlowSearch.started;
    const aborted = PoliteSlowSearch.aborted;
    const { port } = new URL(front().url);
    const leaving = httpRequest({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/search',
      headers: { 'content-type': 'application/json' },
    });
    leaving.on('error', () => undefined);
    leaving.end(JSON.stringify({ service: 'polite', query: 'leaving', limit: 1 }));
    await waitFor(() => PoliteSlowSearch.started === started + 1);
    leaving.destroy();
    await waitFor(() => PoliteSlowSearch.aborted === aborted + 1);
  });
});

async function waitFor(done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}

describe('content lookups with a signal', () => {
  it("a remote collection's lookup nobody waits for cuts its /content call", async () => {
    const { transport, sent } = heldTransport();
    const docs = remoteCollection(transport, 'docs', {
      views: { text: 'text' },
      defaultView: 'text',
    });
    const scope = new AbortScope();
    const lookup = docs.view().get('d1', { signal: scope });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toEqual({ collection: 'docs', id: 'd1', view: 'text' });
    expect(sent[0]!.signal).toBe(scope);
    scope.abort(gone());
    await expect(lookup).rejects.toThrow('client left');
  });

  it("a rerank stage's lookups get the request's signal, and stop with it", async () => {
    const seen: LookupOptions[] = [];
    const content: ContentService = {
      lookup: (_request, options = {}) => {
        seen.push(options);
        // Never answers unless cut, as a remote that hangs.
        return new Promise((_resolve, reject) => {
          if (options.signal) (options.signal as AbortScope).add(() => reject(gone()));
        });
      },
      open: async () => undefined,
      close: async () => undefined,
    };
    const request = new AbortScope();
    const fetcher = new ContentFetcher(content, 'docs', { signal: request });
    const stage = { label: 'rerank', view: 'text', service: { inputKind: 'text' } } as BoundRerank;
    const passages = fetcher.passages(stage, ['d1', 'd2']);
    expect(seen).toHaveLength(2);
    expect(seen.every((options) => options.signal === request)).toBe(true);
    request.abort(gone());
    await expect(passages).rejects.toThrow('client left');
  });
});

/** A remote whose `/avail` lists collection `docs` and whose `/content` never answers. */
async function hangingContentRemote() {
  const seen = { asked: 0, cut: 0 };
  const remote = await fakeRemote((req, _body, res) => {
    if (req.url === '/avail') return json(res, 200, { content: ['docs'], search: [] });
    seen.asked++;
    res.on('close', () => seen.cut++);
  });
  opened.push({ close: () => remote.server.closeAllConnections() });
  opened.push({ close: () => remote.server.close() });
  return { url: remote.url, seen };
}

describe('a client that leaves a front during a rerank over a remote collection', () => {
  it("cuts the front's /content calls to the remote", async () => {
    const remote = await hangingContentRemote();
    const front = await instance({
      server_imports: [remote.url],
      services: [
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0 },
      ],
    });
    opened.push(front.app);
    const body = { pipeline: 'const%3 >> overlap', query: 'q', collection: 'docs' };
    const request = postOverSocket(front.url, '/pipeline', body);
    await waitFor(() => remote.seen.asked === 3);
    request.destroy();
    await waitFor(() => remote.seen.cut === 3);
  });
});

describe('a client that leaves a front while its /content is relayed', () => {
  it("cuts the front's call to the remote", async () => {
    const remote = await hangingContentRemote();
    const front = await instance({ server_imports: [remote.url] });
    opened.push(front.app);
    const request = postOverSocket(front.url, '/content', { collection: 'docs', id: 'd1' });
    await waitFor(() => remote.seen.asked === 1);
    request.destroy();
    await waitFor(() => remote.seen.cut === 1);
  });
});
