/** An app with one API-backed service in front of a fake API, and a way to capture its logs. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach } from 'vitest';
import type { App } from '../../../src/app.js';
import { testApp } from '../../helpers/app.js';
import { fakeApi, type FakeApi, type Handler } from './fake-api.js';

export interface LogCapture {
  lines: string[];
  logger: pino.Logger;
}

/** A pino logger at `debug` whose lines are kept in memory. */
export function captureLogs(): LogCapture {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

/** Starts an app serving `services` (max_wait_time defaults to 5 ms). */
export function appWith(
  services: Record<string, unknown>[],
  options: { logger?: pino.Logger; extra?: Record<string, unknown> } = {},
): Promise<App> {
  const withWait = services.map((service) => ({ max_wait_time: 0.005, ...service }));
  return testApp(
    { services: withWait, ...options.extra },
    options.logger ? { logger: options.logger } : {},
  );
}

/** POSTs `body` to `url` through the in-process app. */
export async function post(app: App, url: string, body: Record<string, unknown>) {
  const response = await app.http.inject({ method: 'POST', url, payload: body });
  return { status: response.statusCode, body: response.json() };
}

export interface Harness {
  /** The app started by the last `start`. */
  readonly app: App;
  /** The fake API started by the last `start`. */
  readonly api: FakeApi;
  /** Starts a fake API answering with `handler`, then an app whose services `services(url)` gives. */
  start(
    handler: Handler,
    services: (apiUrl: string) => Record<string, unknown>[],
    options?: { logger?: pino.Logger },
  ): Promise<{ app: App; api: FakeApi }>;
}

/** A fake API plus an app in front of it, both closed after each test of the file. */
export function apiHarness(): Harness {
  let app: App | undefined;
  let api: FakeApi | undefined;
  afterEach(async () => {
    await app?.close();
    await api?.close();
    app = api = undefined;
  });
  return {
    get app() {
      if (!app) throw new Error('harness not started');
      return app;
    },
    get api() {
      if (!api) throw new Error('harness not started');
      return api;
    },
    async start(handler, services, options = {}) {
      api = await fakeApi(handler);
      app = await appWith(services(api.url), options);
      return { app, api };
    },
  };
}
