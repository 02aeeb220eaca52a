import { Writable } from 'node:stream';
import { createApp, type App } from 'irserve';
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
  const app = await createApp(config, {
    logger: pino({ level: 'debug' }, stream),
    engines: [...engines, ToyEmbedder],
    extras: false,
    interactive: false,
  });
  if (start) await app.start();
  return { app, logs };
}

/** POSTs a JSON body through `inject`; returns status and parsed body. */
export async function post(app: App, url: string, body: unknown) {
  const response = await app.http.inject({ method: 'POST', url, payload: body as object });
  return { status: response.statusCode, body: response.json() };
}

/** GET `/health` (or `/health?service=NAME`); status and parsed body. */
export async function health(app: App, service?: string) {
  const url = service === undefined ? '/health' : `/health?service=${encodeURIComponent(service)}`;
  const response = await app.http.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() };
}

/** GET `/avail`'s `unavailable` list. */
export async function unavailable(app: App): Promise<string[]> {
  const response = await app.http.inject({ method: 'GET', url: '/avail' });
  return response.json<{ unavailable: string[] }>().unavailable;
}
