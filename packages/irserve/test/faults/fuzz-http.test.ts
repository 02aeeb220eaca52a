/**
 * Every HTTP route under a seeded stream of malformed and hostile requests: each answer is a
 * 4xx with a code and a message naming what is wrong (or a 200 when a mutation happened to stay
 * valid), never a 5xx or a dropped connection; the server answers a valid request afterwards.
 * Change SEED to explore; a failure prints the request that caused it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEMPLATES, brokenJson, mutate, random } from './fuzz-cases.js';

const SEED = 21;
const CASES_PER_ROUTE = 220;

let app: App;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-fuzz-'));
  const docs = ['wing lift', 'drag', 'boundary layer'].map((text, i) =>
    JSON.stringify({ id: `d${i}`, text }),
  );
  await writeFile(join(dir, 'docs.jsonl'), docs.join('\n') + '\n');
  app = await testApp(
    {
      services: [
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0.001 },
        { name: 'const_b', engine: 'ConstSearch', config: { start: 3 }, max_wait_time: 0.001 },
        { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0.001 },
        { name: 'split', engine: 'SplitDecomposer', max_wait_time: 0.001 },
      ],
      collections: [
        {
          name: 'docs',
          default_view: 'text',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
        },
      ],
      pipeline_cache: 100,
    },
    { cacheDir: join(dir, 'cache') },
  );
  await app.http.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

type Injected = Awaited<ReturnType<App['http']['inject']>>;

function expectClean(response: Injected, sent: unknown): void {
  const where = `${JSON.stringify(sent)?.slice(0, 300)} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
  expect(response.statusCode, where).toBeLessThan(500);
  expect(response.headers['x-content-type-options'], where).toBe('nosniff');
  if (response.statusCode >= 400) {
    const body = response.json<{ code?: unknown; error?: unknown }>();
    expect(body.code, where).toMatch(/^ERR_[A-Z_]+$/);
    expect(typeof body.error === 'string' && body.error.length > 0, where).toBe(true);
  }
}

describe('HTTP fuzz', () => {
  for (const [url, template] of Object.entries(TEMPLATES)) {
    it(`${url}: ${CASES_PER_ROUTE} malformed bodies, never a 5xx`, async () => {
      const rand = random(SEED + url.length);
      for (let i = 0; i < CASES_PER_ROUTE; i++) {
        const raw = rand() < 0.15;
        const payload = raw ? brokenJson(rand, template) : mutate(rand, template);
        const response = await app.http.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload: raw ? (payload as string) : JSON.stringify(payload),
        });
        expectClean(response, payload);
      }
      const valid = await app.http.inject({ method: 'POST', url, payload: template });
      expect(valid.statusCode, valid.body).toBe(200);
    });
  }

  // The same malformed bodies over real sockets with keep-alive (Node's HTTP parser, a
  // connection closed after a body that does not parse and opened again by the agent).
  const overSockets = [
    '/search',
    '/query',
    '/score',
    '/fuse',
    '/decompose_query',
    '/batch',
    '/pipeline',
  ];
  for (const url of overSockets) {
    it(`${url} over a socket: never a 5xx or a dropped request`, async () => {
      const rand = random(SEED + url.length + 1);
      const agent = new Agent({ keepAlive: true });
      for (let i = 0; i < 120; i++) {
        const raw = rand() < 0.15;
        const generated = raw ? brokenJson(rand, TEMPLATES[url]!) : mutate(rand, TEMPLATES[url]!);
        const payload = raw ? (generated as string) : JSON.stringify(generated);
        const answer = await overSocket(agent, url, payload);
        const where = `${payload.slice(0, 300)} -> ${answer.status} ${answer.body.slice(0, 300)}`;
        expect(answer.status, where).toBeLessThan(500);
        if (answer.status >= 400) {
          const { code, error } = JSON.parse(answer.body) as { code?: unknown; error?: unknown };
          expect(code, where).toMatch(/^ERR_[A-Z_]+$/);
          expect(typeof error === 'string' && error.length > 0, where).toBe(true);
        }
      }
      agent.destroy();
    });
  }

  it('hostile paths, methods, headers and content types, never a 5xx', async () => {
    const rand = random(SEED);
    const paths = [
      '/content/docs/d0',
      '/content/docs/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/content/nope/x',
      '/content/docs/' + 'x'.repeat(5000),
      '/content/docs/%ff%fe',
      '/search?limit=-1',
      '/avail',
      '/ping',
      '/health',
      '/nowhere',
      '/openapi.json',
    ];
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
    const types = ['application/json', 'text/plain', 'application/xml', 'multipart/form-data'];
    for (let i = 0; i < 300; i++) {
      const path = paths[Math.floor(rand() * paths.length)]!;
      const method = methods[Math.floor(rand() * methods.length)]!;
      const headers: Record<string, string> = {
        'content-type': types[Math.floor(rand() * types.length)]!,
      };
      if (rand() < 0.3) headers['x-request-timeout'] = String(rand() < 0.5 ? -rand() : 'soon');
      if (rand() < 0.3) headers['x-irserve-hops'] = String(Math.floor(rand() * 20));
      if (rand() < 0.3) headers['x-request-id'] = 'x'.repeat(Math.floor(rand() * 500));
      const response = await app.http.inject({
        method,
        url: path,
        headers,
        ...(method === 'GET' ? {} : { payload: '{"service":"const","query":"q"}' }),
      });
      expectClean(response, { method, path, headers });
    }
  });
});

/** `payload` POSTed as JSON to this test's server over a real socket. */
function overSocket(agent: Agent, path: string, payload: string) {
  const { port } = app.http.server.address() as AddressInfo;
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
  };
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(
      { agent, host: '127.0.0.1', port, path, method: 'POST', headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
