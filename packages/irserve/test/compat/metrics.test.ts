import { describe, expect, it } from 'vitest';
import { compatAppOfFile } from './compat-app.js';

const server = compatAppOfFile();

async function post(path: string, body: unknown): Promise<number> {
  const response = await fetch(server.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** irserve_requests_total's lines for one route, as `service status count`, sorted. */
async function countedOn(route: string): Promise<string[]> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const prefix = `irserve_requests_total{transport="http",route="${route}",`;
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => /service="([^"]*)",status="(\d+)"\} (\d+)/.exec(line)!.slice(1).join(' '))
    .sort();
}

describe('request metrics of the compat routes (issue 39, item 16)', () => {
  // Every compat request was counted under service="": their bodies name a model, or nothing.
  it('counts a request under the service its model maps to', async () => {
    expect(await post('/v1/embeddings', { model: 'text-embedding-3-small', input: 'a' })).toBe(200);
    expect(await post('/v1/embeddings', { model: 'hash', input: 'a' })).toBe(200);
    expect(await post('/v1/embeddings', { model: 'no-such-model', input: 'a' })).toBe(404);
    expect(await countedOn('/v1/embeddings')).toEqual([' 404 1', 'dense 200 1', 'hash 200 1']);

    const documents = ['the cat', 'a dog'];
    expect(await post('/v2/rerank', { model: 'rerank-v3.5', query: 'cat', documents })).toBe(200);
    // A pipeline is no service: counted under "", as /pipeline is.
    expect(await post('/v2/rerank', { model: 'cascade', query: 'cat', documents })).toBe(200);
    expect(await countedOn('/v2/rerank')).toEqual([' 200 1', 'overlap 200 1']);
  });

  it("counts TEI requests under the service of the route's model, irserve's under theirs", async () => {
    expect(await post('/embed', { inputs: ['a cat'] })).toBe(200);
    expect(await post('/embed', { service: 'hash', input: ['a cat'] })).toBe(200);
    expect(await countedOn('/embed')).toEqual(['dense 200 1', 'hash 200 1']);
    expect(await post('/rerank', { query: 'cat', texts: ['the cat'] })).toBe(200);
    expect(await post('/rerank', { query: 7 })).toBe(422);
    expect(await countedOn('/rerank')).toEqual(['overlap 200 1', 'overlap 422 1']);
    expect(await post('/embed_sparse', { inputs: ['cat cat dog'] })).toBe(200);
    expect(await countedOn('/embed_sparse')).toEqual(['sparse 200 1']);
  });
});
