/**
 * A stand-in for an OpenSearch or Elasticsearch node on loopback, speaking their documented
 * REST wire format for what the engines use: `HEAD /<index>`, `PUT /<index>`, `PUT
 * /<index>/_doc/<id>`, `GET /<index>/_doc/<id>`, `POST /<index>/_search` and `_msearch`
 * (NDJSON). Queries are evaluated for real (Lucene's BM25, cosine kNN as `(1 + cos) / 2`), and a
 * request of any other shape is refused with a `parsing_exception`, so the engines' bodies are
 * checked against the documented shapes. Elasticsearch answers carry `x-elastic-product`, which
 * its client requires.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evaluate, type Doc } from './fake-cluster-query.js';

export type Flavor = 'opensearch' | 'elasticsearch';

export interface FakeCluster {
  url: string;
  flavor: Flavor;
  /** Every request body seen, for assertions on the wire shape. */
  bodies: unknown[];
  /** Delay of each answer (ms), to test time limits. */
  delayMs: number;
  /** Requests whose client closed the connection before the answer (a cluster cancels them). */
  cut: number;
  /** Requests held by `delayMs` at this moment. */
  waiting: number;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    reason: string,
  ) {
    super(reason);
  }
}

export async function startFakeCluster(
  flavor: Flavor,
  options: { auth?: { username: string; password: string }; port?: number } = {},
): Promise<FakeCluster> {
  const { auth } = options;
  const indexes = new Map<string, Map<string, Doc>>();
  const state: FakeCluster = {
    url: '',
    flavor,
    bodies: [],
    delayMs: 0,
    cut: 0,
    waiting: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const type = error instanceof HttpError ? error.type : 'exception';
      send(response, status, { error: { type, reason: (error as Error).message }, status });
    });
  });

  const send = (response: ServerResponse, status: number, body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (flavor === 'elasticsearch') headers['x-elastic-product'] = 'Elasticsearch';
    response.writeHead(status, headers);
    response.end(body === undefined ? undefined : JSON.stringify(body));
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    response.on('close', () => {
      if (!response.writableFinished) state.cut++;
    });
    if (state.delayMs > 0) {
      state.waiting++;
      await new Promise((r) => setTimeout(r, state.delayMs));
      state.waiting--;
    }
    if (auth) {
      const expected = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
      if (request.headers.authorization !== expected)
        throw new HttpError(401, 'security_exception', 'missing authentication credentials');
    }
    const url = new URL(request.url ?? '/', 'http://x');
    const [index, action, id] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const method = request.method ?? 'GET';
    if (index === undefined) return send(response, 200, info(flavor));
    const docs = indexes.get(index);
    if (action === undefined) {
      if (method === 'DELETE') {
        indexes.delete(index);
        return send(response, 200, { acknowledged: true });
      }
      if (method === 'HEAD') return send(response, docs ? 200 : 404);
      if (method === 'PUT') {
        indexes.set(index, new Map());
        return send(response, 200, { acknowledged: true, index });
      }
    }
    if (!docs) throw new HttpError(404, 'index_not_found_exception', `no such index [${index}]`);
    if (action === '_refresh') return send(response, 200, { _shards: { failed: 0 } });
    if (action === '_doc' && id !== undefined && (method === 'PUT' || method === 'POST')) {
      docs.set(id, { id, source: JSON.parse(text) as Record<string, unknown> });
      return send(response, 201, { _index: index, _id: id, result: 'created' });
    }
    if (action === '_doc' && id !== undefined && method === 'GET') {
      const doc = docs.get(id);
      return send(response, doc ? 200 : 404, {
        _index: index,
        _id: id,
        found: Boolean(doc),
        ...(doc ? { _source: doc.source } : {}),
      });
    }
    if (action === '_search') {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      state.bodies.push(body);
      return send(response, 200, evaluate(flavor, docs, body));
    }
    if (action === '_msearch')
      return send(response, 200, { took: 1, responses: msearch(flavor, docs, text, state.bodies) });
    throw new HttpError(
      400,
      'illegal_argument_exception',
      `no handler for ${method} ${url.pathname}`,
    );
  }

  await new Promise<void>((resolveListen) =>
    server.listen(options.port ?? 0, '127.0.0.1', resolveListen),
  );
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolveClose) => {
      server.closeAllConnections();
      server.close(() => resolveClose());
    });
  return state;
}

function info(flavor: Flavor): Record<string, unknown> {
  return flavor === 'opensearch'
    ? {
        name: 'fake',
        cluster_name: 'fake',
        version: { distribution: 'opensearch', number: '2.17.0' },
        tagline: 'The OpenSearch Project: https://opensearch.org/',
      }
    : {
        name: 'fake',
        cluster_name: 'fake',
        version: { number: '9.0.0', build_flavor: 'default' },
        tagline: 'You Know, for Search',
      };
}

/** `_msearch`: NDJSON pairs of header and body; each item answers or fails by itself. */
function msearch(flavor: Flavor, docs: Map<string, Doc>, text: string, seen: unknown[]): unknown[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length % 2 !== 0)
    throw new HttpError(
      400,
      'illegal_argument_exception',
      'msearch body must be header/body pairs',
    );
  const answers: unknown[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const body = JSON.parse(lines[i + 1]!) as Record<string, unknown>;
    seen.push(body);
    try {
      answers.push({ ...evaluate(flavor, docs, body), status: 200 });
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      answers.push({ error: { type: 'parsing_exception', reason: error.message }, status: 400 });
    }
  }
  return answers;
}
