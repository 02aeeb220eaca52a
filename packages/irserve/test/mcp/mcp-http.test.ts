import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { fixtureApp, fixtureCopy } from './helpers.js';

const KEY = 'mcp-test-key-0123456789';
let app: App;
let base: string;
let client: Client;
let fixture: ReturnType<typeof fixtureCopy>;

async function connect(headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) {
  const c = new Client({ name: 'irserve-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }),
  );
  return c;
}

beforeAll(async () => {
  fixture = fixtureCopy();
  ({ app, base } = await fixtureApp(fixture.dir, { apiKey: KEY }));
  client = await connect();
});
afterAll(async () => {
  await client?.close();
  await app?.close();
  fixture?.remove();
});

type Structured = Record<string, unknown> & {
  results?: { id: string; score: number; text?: string }[];
};
async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return result as {
    isError?: boolean;
    structuredContent?: Structured;
    content: {
      type: string;
      text?: string;
      data?: string;
      mimeType?: string;
      resource?: unknown;
    }[];
  };
}

describe('MCP over Streamable HTTP with the SDK client', () => {
  it('lists the seven read-only tools, each with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'decompose_query',
      'fuse',
      'get_document',
      'list_services',
      'run_pipeline',
      'score',
      'search',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it('describes pipelines with examples built from the running services', async () => {
    const { tools } = await client.listTools();
    const pipeline = tools.find((t) => t.name === 'run_pipeline')!;
    expect(pipeline.description).toContain('"bm25%100 >> overlap%10"');
    expect(pipeline.description).toContain('"{bm25, bm25-title}RRF%50"');
    expect(pipeline.description).toContain('hybrid = {bm25, bm25-title}RRF%10');
  });

  it('list_services gives services with engines and descriptions, collections and aliases', async () => {
    const { structuredContent: s } = await call('list_services', {});
    expect(s!.search).toEqual([
      {
        name: 'bm25',
        engine: 'BM25',
        description: 'BM25 over the aero abstracts',
        input_kind: 'text',
      },
      { name: 'bm25-title', engine: 'BM25', input_kind: 'text' },
    ]);
    expect(s!.embed).toEqual([{ name: 'hash', engine: 'TinyHashEmbedder' }]);
    expect((s!.fuse as { name: string }[]).find((f) => f.name === 'RRF')).toMatchObject({
      description: expect.stringContaining('Reciprocal'),
    });
    expect(s!.collections).toEqual([
      { name: 'aero', views: { text: 'text', frame: 'bytes' }, default_view: 'text' },
    ]);
    expect(s!.pipeline_aliases).toEqual({ hybrid: '{bm25, bm25-title}RRF%10' });
  });

  it('search returns ranked results with text from the collection', async () => {
    const r = await call('search', {
      service: 'bm25',
      query: 'boundary layer',
      limit: 2,
      collection: 'aero',
      snippet_chars: 20,
    });
    expect(r.isError).toBeFalsy();
    const results = r.structuredContent!.results!;
    expect(results).toHaveLength(2);
    expect(results[0]!.score).toBeGreaterThanOrEqual(results[1]!.score);
    expect(results[0]!.text!.length).toBeLessThanOrEqual(21);
    expect(JSON.parse(r.content[0]!.text!)).toEqual(r.structuredContent);
  });

  it('run_pipeline with explain traces every stage', async () => {
    const r = await call('run_pipeline', {
      pipeline: 'hybrid >> overlap%2',
      query: 'boundary layer',
      collection: 'aero',
      explain: true,
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent!.service).toBe('overlap');
    expect(r.structuredContent!.results).toHaveLength(2);
    const explain = r.structuredContent!.explain as { stages: { service: string }[] };
    expect(explain.stages.map((s) => s.service)).toEqual(['bm25', 'bm25-title', 'RRF', 'overlap']);
    // Sizes and times only: a stage's documents would fill a model's context.
    expect(explain.stages.filter((s) => 'results' in s)).toEqual([]);
  });

  it('get_document gives text views as text and bytes views as images with their MIME type', async () => {
    const text = await call('get_document', { collection: 'aero', id: 'd2' });
    expect(text.structuredContent).toMatchObject({
      kind: 'text',
      text: expect.stringContaining('Laminar'),
    });
    const image = await call('get_document', { collection: 'aero', id: 'd1', view: 'frame' });
    expect(image.structuredContent).toMatchObject({
      kind: 'bytes',
      parts: [{ mime: 'image/png' }],
    });
    const block = image.content.find((c) => c.type === 'image')!;
    expect(block.mimeType).toBe('image/png');
    expect(Buffer.from(block.data!, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('score, fuse and decompose_query call their services', async () => {
    const scored = await call('score', {
      service: 'overlap',
      query: 'wing flutter',
      passages: ['wing flutter', 'heat'],
    });
    expect(scored.structuredContent!.scores).toEqual([2, 0]);
    const fused = await call('fuse', { rankings: [{ a: 3, b: 1 }, { b: 5 }] });
    expect(fused.structuredContent!.results!.map((r) => r.id)).toEqual(['b', 'a']);
    const decomposed = await call('decompose_query', { service: 'nope', query: 'a and b' });
    expect(decomposed.isError).toBe(true);
    expect(decomposed.content[0]!.text).toMatch(/^ERR_SERVICE_NOT_FOUND/);
  });

  it('a bad tool argument or an unknown service is an error result, never a crash', async () => {
    const unknown = await call('search', { service: 'missing', query: 'x' });
    expect(unknown.isError).toBe(true);
    const syntax = await call('run_pipeline', { pipeline: 'bm25 >>', query: 'x' });
    expect(syntax.isError).toBe(true);
    expect(syntax.content[0]!.text).toMatch(/ERR_PIPELINE_SYNTAX/);
    const badArgs = await call('search', { service: 'bm25', query: 'x', limit: -5 });
    expect(badArgs.isError).toBe(true);
    const missingDoc = await call('get_document', { collection: 'aero', id: 'nope' });
    expect(missingDoc.isError).toBe(true);
  });
});

describe('/mcp security', () => {
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
  const post = (headers: Record<string, string>) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize),
    });

  it('needs the bearer token', async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    await expect(connect({})).rejects.toThrow();
    expect((await post({ authorization: `Bearer ${KEY}` })).status).toBe(200);
  });

  it('refuses browser origins other than loopback (DNS rebinding)', async () => {
    const auth = { authorization: `Bearer ${KEY}` };
    const evil = await post({ ...auth, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'ERR_FORBIDDEN' });
    expect((await post({ ...auth, origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await post({ ...auth, origin: 'not a url' })).status).toBe(403);
  });

  it('is stateless: GET (no server stream) is a 405, tools/list works without a session', async () => {
    const get = await fetch(`${base}/mcp`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${KEY}` },
    });
    expect(get.status).toBe(405);
    const list = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${KEY}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools).toHaveLength(7);
  });

  it('answers malformed JSON-RPC with a 4xx, not a crash', async () => {
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${KEY}`,
      },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const broken = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: '{"jsonrpc":',
    });
    expect(broken.status).toBe(400);
  });
});
