/**
 * Installing @irserve/sparse beside irserve is all it takes: the core finds the package in
 * node_modules (a workspace link here) and registers LSR and Sparse, with no `engines` option
 * and no `file_imports`. This loads the compiled package, as a user's install would.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { lsrWorld, type LsrWorld } from '../helpers/world.js';

describe('@irserve/sparse as an installed extra', () => {
  let world: LsrWorld;
  let app: App;

  beforeAll(async () => {
    world = await lsrWorld();
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
    await world?.tei.close();
  });

  it('serves LSR and Sparse services declared only in the config', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.search).toEqual(expect.arrayContaining(['lsr', 'vectors']));
    const reply = await app.http.inject({
      method: 'POST',
      url: '/search',
      payload: { service: 'lsr', query: 'propeller noise', limit: 2 },
    });
    expect(reply.statusCode).toBe(200);
    expect(Object.keys(reply.json().scores)[0]).toBe('d6');
  });
});
