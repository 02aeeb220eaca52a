import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { collectionConfigSchema } from '../../src/collections/config.js';
import { createCollections } from '../../src/collections/index.js';
import type { AppCore } from '../../src/core/app-core.js';
import { sendError } from '../../src/transports/http/errors.js';
import { contentRoutes } from '../../src/transports/http/routes/content.js';
import { hasBinary, jsonl, silent, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const servers: FastifyInstance[] = [];
// Content services hold open file handles (readers, offset maps): closed after each test, so no
// handle is left for the garbage collector (Node's DEP0137 warning).
const contents: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of contents.splice(0)) await c.close();
});

async function setup(extra: Record<string, unknown> = {}) {
  const dir = await tempDir();
  await writeFile(
    join(dir, 'docs.jsonl'),
    jsonl([
      { id: 'd1', title: 'First', text: 'hello', more: 'world' },
      { id: 7, text: 'numeric' },
      { id: 'a/b', text: 'slash' },
    ]),
  );
  await writeFile(join(dir, 'lang.tsv'), 'd1\ten\n7\tde\n');
  await mkdir(join(dir, 'img'));
  await writeFile(join(dir, 'img', 'd1.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await mkdir(join(dir, 'frames', 'd1'), { recursive: true });
  await writeFile(join(dir, 'frames', 'd1', '0.jpg'), 'f0');
  await writeFile(join(dir, 'frames', 'd1', '1.jpg'), 'f1');
  const configs = [
    {
      name: 'docs',
      id_to_lang_mapping: 'lang.tsv',
      default_view: 'text',
      views: {
        text: { source: { source: 'text_jsonl', doc_path: 'docs.jsonl' } },
        both: {
          kind: 'text',
          source: {
            source: 'text_jsonl',
            doc_path: 'docs.jsonl',
            content_fields: ['text', 'more'],
            sep: ' | ',
          },
        },
        image: { kind: 'bytes', source: { source: 'local_path', path_template: 'img/{id}.png' } },
        frames: { source: { source: 'local_path', path_glob: '{id}/*.jpg', base_dir: 'frames' } },
      },
      ...extra,
    },
    { name: 'legacy', doc_path: 'docs.jsonl', cache: 0 },
  ].map((c) => collectionConfigSchema.parse(c));
  const { catalog, content } = await createCollections(configs, {
    logger: silent,
    cacheDir: join(dir, 'cache'),
    interactive: false,
    baseDir: dir,
    userCacheDir: join(dir, 'user'),
  });
  const core = { collections: catalog, content, logger: silent } as unknown as AppCore;
  const server = Fastify();
  server.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  contentRoutes(server, core);
  servers.push(server);
  contents.push(content);
  return { dir, server, catalog, content };
}

const post = (server: FastifyInstance, payload: unknown) =>
  server.inject({ method: 'POST', url: '/content', payload: payload as object });

describe('content service', () => {
  it('opens every view and names each failed one', async () => {
    const { content, dir } = await setup();
    await content.open();
    const broken = await createCollections(
      [
        collectionConfigSchema.parse({
          name: 'x',
          default_view: 'a',
          views: {
            a: { source: { source: 'text_jsonl', doc_path: 'missing.jsonl' } },
            b: { source: { source: 'local_path', path_template: 'nodir/{id}' } },
          },
        }),
      ],
      {
        logger: silent,
        cacheDir: dir,
        interactive: false,
        baseDir: dir,
        userCacheDir: join(dir, 'user'),
      },
    );
    contents.push(broken.content);
    await expect(broken.content.open()).rejects.toThrow(
      /2 collection view\(s\) failed to open:[\s\S]*"x" view "a"[\s\S]*"x" view "b"/,
    );
  });

  it('lists views and defaults as /avail shows them', async () => {
    const { catalog } = await setup();
    expect(catalog.names()).toEqual(['docs', 'legacy']);
    expect(catalog.get('docs').viewKinds).toEqual({
      text: 'text',
      both: 'text',
      image: 'bytes',
      frames: 'bytes',
    });
    expect(catalog.get('legacy').defaultView).toBe('text');
  });

  it('enumerates documents of a JSONL view', async () => {
    const { catalog } = await setup();
    const view = catalog.get('docs').view('both');
    const ids: string[] = [];
    if (view.kind === 'text' && view.documents)
      for await (const doc of view.documents()) ids.push(`${doc.id}=${doc.text}`);
    expect(ids).toEqual(['d1=hello | world', '7=numeric', 'a/b=slash']);
  });
});

describe('POST /content', () => {
  it('returns text, title, language, and caches', async () => {
    const { server } = await setup();
    const first = await post(server, { collection: 'docs', id: 'd1' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      collection: 'docs',
      id: 'd1',
      view: 'text',
      kind: 'text',
      text: 'hello',
      title: 'First',
      language: 'en',
      cached: false,
    });
    expect((await post(server, { collection: 'docs', id: 'd1' })).json().cached).toBe(true);
    expect((await post(server, { collection: 'docs', id: 'd1', view: 'both' })).json().text).toBe(
      'hello | world',
    );
  });

  it('accepts a numeric id, and the deprecated doc_path collection (cache disabled)', async () => {
    const { server } = await setup();
    expect((await post(server, { collection: 'docs', id: 7 })).json()).toMatchObject({
      id: '7',
      text: 'numeric',
      language: 'de',
    });
    const legacy = await post(server, { collection: 'legacy', id: 'd1' });
    expect(legacy.json()).toMatchObject({ view: 'text', text: 'hello', cached: false });
    expect((await post(server, { collection: 'legacy', id: 'd1' })).json().cached).toBe(false);
  });

  it('returns bytes as base64 parts with mime', async () => {
    const { server } = await setup();
    const image = (await post(server, { collection: 'docs', id: 'd1', view: 'image' })).json();
    expect(image).toEqual({
      collection: 'docs',
      id: 'd1',
      view: 'image',
      kind: 'bytes',
      data: [{ data: 'iVBORw==', mime: 'image/png' }],
      language: 'en',
      cached: false,
    });
    const frames = (await post(server, { collection: 'docs', id: 'd1', view: 'frames' })).json();
    expect(
      frames.data.map((p: { data: string }) => Buffer.from(p.data, 'base64').toString()),
    ).toEqual(['f0', 'f1']);
  });

  const bad: [string, unknown, string][] = [
    ['unknown collection', { collection: 'nope', id: 'd1' }, 'ERR_COLLECTION_NOT_FOUND'],
    ['unknown view', { collection: 'docs', id: 'd1', view: 'nope' }, 'ERR_COLLECTION_NOT_FOUND'],
    ['unknown id', { collection: 'docs', id: 'zzz' }, 'ERR_DOC_NOT_FOUND'],
    ['missing id', { collection: 'docs' }, 'ERR_BAD_REQUEST'],
    ['missing collection', { id: 'd1' }, 'ERR_BAD_REQUEST'],
    ['empty id', { collection: 'docs', id: '' }, 'ERR_BAD_REQUEST'],
    ['id of the wrong type', { collection: 'docs', id: { $ne: 1 } }, 'ERR_BAD_REQUEST'],
    ['id as an array', { collection: 'docs', id: ['d1'] }, 'ERR_BAD_REQUEST'],
    ['oversized id', { collection: 'docs', id: 'x'.repeat(5000) }, 'ERR_BAD_REQUEST'],
    ['oversized collection', { collection: 'x'.repeat(5000), id: 'd1' }, 'ERR_BAD_REQUEST'],
    ['view of the wrong type', { collection: 'docs', id: 'd1', view: 3 }, 'ERR_BAD_REQUEST'],
    ['body is an array', [1, 2], 'ERR_BAD_REQUEST'],
    [
      'path traversal on a bytes view',
      { collection: 'docs', id: '../../../etc/passwd', view: 'image' },
      'ERR_BAD_REQUEST',
    ],
    [
      'absolute path on a bytes view',
      { collection: 'docs', id: '/etc/passwd', view: 'frames' },
      'ERR_BAD_REQUEST',
    ],
    [
      'NUL byte in a bytes id',
      { collection: 'docs', id: 'd1\u0000', view: 'image' },
      'ERR_BAD_REQUEST',
    ],
    [
      'prototype key as collection',
      { collection: '__proto__', id: 'd1' },
      'ERR_COLLECTION_NOT_FOUND',
    ],
    [
      'prototype key as view',
      { collection: 'docs', id: 'd1', view: 'constructor' },
      'ERR_COLLECTION_NOT_FOUND',
    ],
  ];
  it.each(bad)('400 for %s', async (_what, payload, code) => {
    const { server } = await setup();
    const res = await post(server, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, error: expect.any(String) });
    expect(res.json().error.length).toBeLessThan(1000);
  });
});

describe('GET /content/:collection/:id', () => {
  it('serves text as text/plain and one-part bytes raw with their type', async () => {
    const { server } = await setup();
    const text = await server.inject({ method: 'GET', url: '/content/docs/d1' });
    expect(text.statusCode).toBe(200);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.body).toBe('hello');
    const image = await server.inject({ method: 'GET', url: '/content/docs/d1?view=image' });
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['content-security-policy']).toBe('sandbox');
    expect(image.rawPayload).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect((await server.inject({ method: 'GET', url: '/content/docs/a/b' })).body).toBe('slash');
    expect((await server.inject({ method: 'GET', url: '/content/docs/a%2Fb' })).body).toBe('slash');
  });

  it('refuses multi-part documents, unknown ids and traversal', async () => {
    const { server } = await setup();
    const multi = await server.inject({ method: 'GET', url: '/content/docs/d1?view=frames' });
    expect(multi.statusCode).toBe(400);
    expect(multi.json().error).toMatch(/2 parts/);
    expect((await server.inject({ method: 'GET', url: '/content/docs/nope' })).json().code).toBe(
      'ERR_DOC_NOT_FOUND',
    );
    expect(
      (
        await server.inject({
          method: 'GET',
          url: '/content/docs/..%2F..%2Fetc%2Fpasswd?view=image',
        })
      ).statusCode,
    ).toBe(400);
    expect((await server.inject({ method: 'GET', url: '/content/nope/d1' })).json().code).toBe(
      'ERR_COLLECTION_NOT_FOUND',
    );
  });
});

describe.skipIf(!hasBinary('tar'))('tar collection through the content service', () => {
  it('serves a tar member', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'k1.txt'), 'member');
    execFileSync('tar', ['-cf', join(dir, 'one.tar'), '-C', join(dir, 'src'), 'k1.txt']);
    const config = collectionConfigSchema.parse({
      name: 't',
      views: {
        raw: {
          source: {
            source: 'tar',
            tar_template: 'one.tar',
            matcher: { kind: 'glob', pattern: '{id}.txt' },
          },
        },
      },
    });
    const { content } = await createCollections([config], {
      logger: silent,
      cacheDir: dir,
      interactive: false,
      baseDir: dir,
      userCacheDir: join(dir, 'u'),
    });
    await content.open();
    const result = await content.lookup({ collection: 't', id: 'k1' });
    expect(result.kind).toBe('bytes');
    expect(result.document).toMatchObject({ parts: [{ mime: 'text/plain' }] });
    await content.close();
  });
});
