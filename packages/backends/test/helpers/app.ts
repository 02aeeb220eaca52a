import { Writable } from 'node:stream';
import type { App } from 'irserve';
import { get, startTestApp } from 'irserve/testing';
import { pino } from 'pino';
import { engines } from '../../src/engines.js';
import { ToyEmbedder } from './toy-embedder.js';

export interface TestApp {
  app: App;
  /** Every log line the app wrote (to check that no secret is ever logged). */
  logs: string[];
}

/**
 * An app over the back-end engines (plus the toy embedder), started, logging into memory.
 *
 * @example
 * const { app } = await backendApp({ services: [{ name: 'pg', engine: 'Postgres', config }] });
 */
export async function backendApp(config: Record<string, unknown>, start = true): Promise<TestApp> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const { app } = await startTestApp(config, {
    logger: pino({ level: 'debug' }, stream),
    engines: [...engines, ToyEmbedder],
    noStart: !start,
  });
  return { app, logs };
}

export { post } from 'irserve/testing';

/** GET `/health` (or `/health?service=NAME`); status and parsed body. */
export async function health(app: App, service?: string) {
  const url = service === undefined ? '/health' : `/health?service=${encodeURIComponent(service)}`;
  return get(app, url);
}

/** GET `/avail`'s `unavailable` list. */
export async function unavailable(app: App): Promise<string[]> {
  return ((await get(app, '/avail')).body as { unavailable: string[] }).unavailable;
}
