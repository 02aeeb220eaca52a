/**
 * Headers every answer carries: `X-Content-Type-Options: nosniff` on every route and every
 * error (the browser never guesses a type), and `Content-Security-Policy: sandbox` on the raw
 * content of a collection (a served HTML or SVG document runs no script on the server's origin).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { HashEmbedder } from '../compat/engines.js';

const KEY = 'headers-key';
const AUTH = { authorization: `Bearer ${KEY}` };
let app: App;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-headers-'));
  await writeFile(join(dir, 'page.html'), '<script>document.title = localStorage.key</script>');
  await writeFile(join(dir, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(dir, 'paper.pdf'), '%PDF-1.4\n%%EOF\n');
  await writeFile(join(dir, 'docs.jsonl'), JSON.stringify({ id: 'd1', text: 'wing lift' }) + '\n');
  app = await testApp(
    {
      services: [
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'embedder', engine: 'HashEmbedder', max_wait_time: 0 },
      ],
      collections: [
        {
          name: 'files',
          views: {
            raw: { source: { source: 'local_path', path_template: '{id}', base_dir: dir } },
          },
        },
        {
          name: 'docs',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
        },
      ],
    },
    { apiKey: KEY, engines: [...TEST_ENGINES, HashEmbedder], cacheDir: join(dir, 'cache') },
  );
});
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...AUTH, ...json, accept: 'application/json, text/event-stream' };
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

describe('X-Content-Type-Options: nosniff', () => {
  it.each([
    ['GET', '/ping', undefined, {}],
    ['GET', '/health', undefined, AUTH],
    ['GET', '/avail', undefined, AUTH],
    ['HEAD', '/ping', undefined, {}],
    ['GET', '/openapi.json', undefined, AUTH],
    ['GET', '/metrics', undefined, AUTH],
    ['GET', '/ui/', undefined, {}],
    ['GET', '/ui', undefined, {}],
    ['POST', '/search', { service: 'const', query: 'q' }, { ...AUTH, ...json }],
    ['POST', '/search', { service: 'const' }, { ...AUTH, ...json }],
    ['POST', '/search', '{"service":', { ...AUTH, ...json }],
    ['POST', '/search', 'q', { ...AUTH, 'content-type': 'text/plain' }],
    ['POST', '/search', { service: 'const', query: 'q' }, json],
    ['GET', '/search', undefined, AUTH],
    ['GET', '/nowhere', undefined, AUTH],
    ['GET', '/content/%ff', undefined, AUTH],
    ['GET', '/content/docs/d1', undefined, AUTH],
    ['POST', '/v1/embeddings', { model: 'embedder', input: 'q' }, { ...AUTH, ...json }],
    ['POST', '/v1/embeddings', '{"model":', { ...AUTH, ...json }],
    ['POST', '/embed', { inputs: 'q' }, { ...AUTH, ...json }],
    ['POST', '/rerank', { query: 'q' }, { ...AUTH, ...json }],
    ['GET', '/v1/models', undefined, AUTH],
    ['POST', '/mcp', initialize, MCP_HEADERS],
    ['GET', '/mcp', undefined, MCP_HEADERS],
  ])('%s %s', async (method, url, body, headers) => {
    const response = await app.http.inject({
      method: method as 'GET',
      url,
      headers,
      ...(body === undefined
        ? {}
        : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    expect(response.headers['x-content-type-options'], `${response.statusCode}`).toBe('nosniff');
  });
});

describe('GET /content/... of a bytes view', () => {
  it.each([
    ['page.html', 'text/html'],
    ['drawing.svg', 'image/svg+xml'],
  ])('%s (%s) is sandboxed', async (id, type) => {
    const response = await app.http.inject({
      method: 'GET',
      url: `/content/files/${id}`,
      headers: AUTH,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers['content-security-policy']).toBe('sandbox');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a text view is sandboxed too', async () => {
    const response = await app.http.inject({
      method: 'GET',
      url: '/content/docs/d1',
      headers: AUTH,
    });
    expect(response.headers['content-security-policy']).toBe('sandbox');
  });

  it('a PDF is not (browsers do not open one in a sandbox)', async () => {
    const response = await app.http.inject({
      method: 'GET',
      url: '/content/files/paper.pdf',
      headers: AUTH,
    });
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-security-policy']).toBeUndefined();
  });
});
