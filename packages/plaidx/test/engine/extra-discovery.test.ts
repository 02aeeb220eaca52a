/**
 * Installing @irserve/plaidx beside irserve is all it takes: the core finds the package in
 * node_modules (a workspace link here) and registers PLAIDX from its compiled `engines` module.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from 'irserve';
import { plaidWorld, type PlaidWorld } from './world.js';

describe('@irserve/plaidx as an installed extra', () => {
  let world: PlaidWorld;
  let app: App;

  beforeAll(async () => {
    world = await plaidWorld();
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
    await world?.encoder.close();
  });

  it('serves a PLAIDX service declared only in the config', async () => {
    const avail = (await app.http.inject({ method: 'GET', url: '/avail' })).json();
    expect(avail.search).toContain('plaidx');
    expect(avail.score).toContain('plaidx');
    const reply = await app.http.inject({
      method: 'POST',
      url: '/search',
      payload: { service: 'plaidx', query: 'propeller noise', limit: 2 },
    });
    expect(reply.statusCode).toBe(200);
    expect(Object.keys(reply.json().scores)[0]).toBe('d6');
  });
});
