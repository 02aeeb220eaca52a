/** Starts an irserve app with the sparse engines for a test world. */
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp, type App } from 'irserve';
import { LSR, Sparse } from '../../src/index.js';

export async function startApp(config: Record<string, unknown>, dir: string): Promise<App> {
  const app = await createApp(config, {
    logger: pino({ level: 'silent' }),
    engines: [LSR, Sparse],
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
