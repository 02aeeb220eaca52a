/**
 * A depth limit on request bodies: arrays and objects nested deeper than MAX_BODY_DEPTH in any
 * field of any route are a 400 naming the field (they were a 500, "Maximum call stack size
 * exceeded", from the code that walks a body), and the check itself never recurses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { MAX_BODY_DEPTH, tooDeepField } from '../../src/transports/http/json-body.js';
import { testApp } from '../helpers/app.js';
import { TEST_ENGINES } from '../helpers/engines.js';
import { HashEmbedder } from '../compat/engines.js';

let app: App;

beforeAll(async () => {
  app = await testApp(
    {
      services: [
        { name: 'const', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'overlap', engine: 'OverlapScore', max_wait_time: 0 },
        { name: 'embedder', engine: 'HashEmbedder', max_wait_time: 0 },
      ],
    },
    { engines: [...TEST_ENGINES, HashEmbedder] },
  );
});
afterAll(async () => {
  await app?.close();
});

/** `depth` arrays, one inside the other, as JSON text. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const DEEP = nested(3000);

describe('a body nested 3,000 levels deep', () => {
  it.each([
    ['/search', `{"service":"const","query":"q","x":${DEEP}}`, 'x'],
    ['/query', `{"service":"const","query":"q","x":${DEEP}}`, 'x'],
    ['/score', `{"service":"overlap","query":"q","passages":["a"],"x":${DEEP}}`, 'x'],
    [
      '/pipeline',
      `{"pipeline":"const","query":"q","runtime_kwargs":{"const":{"x":${DEEP}}}}`,
      'runtime_kwargs',
    ],
    [
      '/batch',
      `{"requests":[{"endpoint":"search","body":{"service":"const","query":"q","x":${DEEP}}}]}`,
      'requests',
    ],
    ['/embed', `{"service":"embedder","texts":["a"],"x":${DEEP}}`, 'x'],
    ['/v1/embeddings', `{"model":"embedder","input":${DEEP}}`, 'input'],
    ['/fuse', `{"service":"RRF","query":"q","scores":${DEEP}}`, 'scores'],
  ])('%s: 400 naming the field', async (url, payload, field) => {
    const response = await app.http.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode, response.body).toBe(400);
    const message = `field "${field}" nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`;
    if (url === '/v1/embeddings') {
      // OpenAI's error shape, with the field as `param`.
      const { error } = response.json<{ error: { message: string; param: string } }>();
      expect(error.message).toContain(message);
      expect(error.param).toBe(field);
    } else {
      const body = response.json<{ error: string; code: string; fields: string[] }>();
      expect(body).toMatchObject({ code: 'ERR_BAD_REQUEST', fields: [field] });
      expect(body.error).toContain(message);
    }
  });

  it('a top-level array that deep: 400 about the body', async () => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/search',
      headers: { 'content-type': 'application/json' },
      payload: DEEP,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: string }>().error).toMatch(/^the request body nests/);
  });

  it('a field nested exactly to the limit is read as usual', async () => {
    // The body is level 1, its field "x" level 2: MAX_BODY_DEPTH - 1 arrays reach the limit.
    const payload = `{"service":"const","query":"q","limit":2,"x":${nested(MAX_BODY_DEPTH - 1)}}`;
    const ok = await app.http.inject({
      method: 'POST',
      url: '/search',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const over = await app.http.inject({
      method: 'POST',
      url: '/search',
      headers: { 'content-type': 'application/json' },
      payload: payload.replace('"x":', '"x":[').replace(/}$/, ']}'),
    });
    expect(over.statusCode).toBe(400);
  });
});

describe('tooDeepField', () => {
  it('walks 100,000 levels without recursion', () => {
    let deep: unknown[] = [];
    const root = { a: 1, b: { c: [1, 2, { d: 'x' }] }, z: deep };
    for (let i = 0; i < 100_000; i++) {
      const next: unknown[] = [];
      deep.push(next);
      deep = next;
    }
    expect(tooDeepField(root, 64)).toBe('z');
    expect(tooDeepField({ a: 1, b: { c: [1, 2, { d: 'x' }] } }, 64)).toBeUndefined();
  });

  it('counts the body as level one', () => {
    expect(tooDeepField({ x: [[1]] }, 3)).toBeUndefined();
    expect(tooDeepField({ x: [[[1]]] }, 3)).toBe('x');
    expect(tooDeepField([[[1]]], 3)).toBeUndefined();
    expect(tooDeepField([[[[1]]]], 3)).toBe('');
    expect(tooDeepField('text', 0)).toBeUndefined();
  });
});
