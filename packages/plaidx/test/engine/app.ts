/** Starting an app with the PLAIDX engine registered directly, and posting to it. */
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp, type App } from 'irserve';
import { PLAIDX } from '../../src/index.js';

const silent = pino({ level: 'silent' });

export async function startApp(config: Record<string, unknown>, dir: string): Promise<App> {
  const app = await createApp(config, {
    logger: silent,
    engines: [PLAIDX],
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
