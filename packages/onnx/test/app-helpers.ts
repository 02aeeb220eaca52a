/** An irserve app over a tiny JSONL collection, for engine tests through HTTP inject. */
import { pino } from 'pino';
import type { App } from 'irserve';
import type { EngineClass } from 'irserve/plugin';
import { startTestApp, tempDir, writeCollection } from 'irserve/testing';

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
  const dir = await tempDir('irserve-onnx-app-');
  const collection = await writeCollection(dir, 'tiny', DOCS);
  return { dir: dir.path, collection, close: () => dir.remove() };
}

/** An app over `config` with `engines`, started (relative paths resolve against `dir`). */
export async function startApp(
  config: Record<string, unknown>,
  dir: string,
  engines: EngineClass[],
  logger = pino({ level: 'silent' }),
): Promise<App> {
  return (await startTestApp(config, { engines, dir, logger })).app;
}

export { post } from 'irserve/testing';
