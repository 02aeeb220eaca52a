/** An irserve app over a tiny JSONL collection, for engine tests through HTTP inject. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp, type App } from 'irserve';
import type { EngineClass } from 'irserve/plugin';

export const DOCS = [
  { id: 'd1', text: 'the quick brown fox jump over the lazy dog' },
  { id: 'd2', text: 'how do i cook pasta in salt water' },
  { id: 'd3', text: 'a cat is a neural retrieval model' },
  { id: 'd4', text: 'what is a search engine for the world' },
];

export interface TestWorld {
  dir: string;
  collection: Record<string, unknown>;
  close(): Promise<void>;
}

export async function testWorld(): Promise<TestWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-onnx-app-'));
  await writeFile(join(dir, 'corpus.jsonl'), DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const collection = {
    name: 'tiny',
    views: {
      text: {
        kind: 'text',
        source: {
          source: 'text_jsonl',
          doc_path: join(dir, 'corpus.jsonl'),
          id_field: 'id',
          content_fields: ['text'],
        },
      },
    },
  };
  return { dir, collection, close: () => rm(dir, { recursive: true, force: true }) };
}

export async function startApp(
  config: Record<string, unknown>,
  dir: string,
  engines: EngineClass[],
  logger = pino({ level: 'silent' }),
): Promise<App> {
  const app = await createApp(config, {
    logger,
    engines,
    extras: false,
    interactive: false,
    configDir: dir,
    cacheDir: join(dir, 'cache'),
  });
  await app.start();
  return app;
}

export async function post(app: App, url: string, payload: Record<string, unknown>) {
  const reply = await app.http.inject({ method: 'POST', url, payload });
  return { status: reply.statusCode, body: reply.json() };
}
