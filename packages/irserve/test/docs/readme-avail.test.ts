/**
 * Issue 39, item 15: the README's `/avail` example is what the quickstart server answers, every
 * key included, so a reader who copies it sees the same listing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { quietLogger } from '../helpers/logger.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The JSON line the README shows after `curl -s localhost:8000/avail`. */
function readmeAvail(): unknown {
  const lines = readFileSync(`${root}README.md`, 'utf8').split('\n');
  const at = lines.findIndex((line) => line.trim() === '$ curl -s localhost:8000/avail');
  expect(at, 'the README shows `curl -s localhost:8000/avail`').toBeGreaterThanOrEqual(0);
  return JSON.parse(lines[at + 1]!);
}

describe("the README's /avail example", () => {
  const apps: App[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('equals what the quickstart config answers', async () => {
    const configDir = `${root}examples/quickstart`;
    const config: unknown = JSON.parse(readFileSync(`${configDir}/config.json`, 'utf8'));
    const app = await createApp(config, { configDir, logger: quietLogger(), interactive: false });
    apps.push(app);
    await app.start();
    const answer = await app.http.inject({ method: 'GET', url: '/avail' });
    expect(answer.statusCode).toBe(200);
    expect(readmeAvail()).toEqual(answer.json());
  }, 60_000);
});
