/**
 * Installing @irserve/dense beside irserve is all it takes: the core finds the package in
 * node_modules (a workspace link here) and registers its engines, with no `engines` option and
 * no `file_imports`. This loads the compiled package, as a user's install would.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { denseWorld, type DenseWorld } from './world.js';

describe('@irserve/dense as an installed extra', () => {
  let world: DenseWorld;
  let app: App;

  beforeAll(async () => {
    world = await denseWorld();
    app = await createApp(world.config(), {
      logger: pino({ level: 'silent' }),
      interactive: false,
      configDir: world.dir,
      cacheDir: join(world.dir, 'cache'),
    });
    await app.start();
  });
  afterAll(async () => {
    await app?.close();
    await world?.api.close();
  });

  it('serves a Dense service declared only in the config', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.search).toContain('dense');
    expect(avail.score).toContain('dense');
    const reply = await app.http.inject({
      method: 'POST',
      url: '/search',
      payload: { service: 'dense', query: 'propeller noise', limit: 2 },
    });
    expect(reply.statusCode).toBe(200);
    expect(Object.keys(reply.json().scores)[0]).toBe('d6');
  });
});
