import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { App } from '../../src/app.js';
import { createApp } from '../../src/app.js';
import { quietLogger } from '../helpers/logger.js';

/** The fixture directory (config, plugin, corpus, one PNG) copied to a fresh temporary one. */
export function fixtureCopy(): { dir: string; configPath: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'irserve-mcp-'));
  cpSync(resolve(import.meta.dirname, 'fixtures'), dir, { recursive: true });
  return {
    dir,
    configPath: join(dir, 'config.json'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An app over the fixture config (plus `overrides`), started and listening on loopback. */
export async function fixtureApp(
  dir: string,
  options: { apiKey?: string; overrides?: Record<string, unknown> } = {},
): Promise<{ app: App; base: string }> {
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const app = await createApp(
    { ...config, ...options.overrides },
    {
      logger: quietLogger(),
      configDir: dir,
      interactive: false,
      extras: false,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    },
  );
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}
