import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// What `npm run build` ships: zod, Fastify and pino as bundles (scripts/prebundle.mjs), which a
// server start loads instead of some 260 files of node_modules.
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const run = promisify(execFile);

/** Runs an ES module snippet in a fresh Node (the bundles' own module scope, not Vitest's). */
async function inNode(source: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
    cwd: dist,
  });
  return JSON.parse(stdout);
}

describe('prebundled zod, Fastify and pino (npm run build)', () => {
  it('replaces the compiled re-exports with bundles', async () => {
    for (const name of ['zod', 'fastify', 'pino']) {
      const code = await readFile(`${dist}prebundled/${name}.js`, 'utf8').catch(() => '');
      expect(code, `dist/prebundled/${name}.js: run npm run build`).toMatch(/createRequire/);
      expect(code).not.toMatch(/from ["'](zod|fastify|pino)["']/);
    }
  });

  it('keeps only the English zod locale, and zod works', async () => {
    const result = await inNode(`
      import { z } from './prebundled/zod.js';
      const parsed = z.object({ k1: z.number() }).strict().safeParse({ k1: '0.9', colection: 1 });
      console.log(JSON.stringify({ locales: Object.keys(z.locales), issues: parsed.error.issues.map((i) => i.message) }));
    `);
    expect(result).toEqual({
      locales: ['en'],
      issues: ['Invalid input: expected number, received string', 'Unrecognized key: "colection"'],
    });
  });

  it('serves from the bundles, loading no Fastify or pino file from node_modules', async () => {
    const result = await inNode(`
      import { createRequire } from 'node:module';
      import { Fastify } from './prebundled/fastify.js';
      import { pino } from './prebundled/pino.js';
      const app = Fastify({ loggerInstance: pino({ level: 'silent' }) });
      app.get('/', async () => ({ ok: true }));
      const answer = await app.inject({ url: '/' });
      await app.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ body: answer.json(), fromNodeModules: loaded.filter((f) => /node_modules/.test(f)) }));
    `);
    expect(result).toEqual({ body: { ok: true }, fromNodeModules: [] });
  });
});
