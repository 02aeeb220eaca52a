/**
 * Where an app keeps its indexes: a named `cache_dir` as given, `.irserve-cache` beside the
 * config when that can be written, and the user's cache when the config is mounted read-only
 * (a ConfigMap, a `:ro` volume). The check creates nothing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appCacheDir, chosenCacheDir } from '../../src/app/cache-dir.js';
import { hash16 } from '../../src/collections/sidecar.js';
import { captureLogs } from '../../src/testing/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function configDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-cachedir-'));
  dirs.push(dir);
  return dir;
}

describe('appCacheDir', () => {
  it('keeps a named directory as it is, relative to the config', async () => {
    const dir = await configDir();
    const never = async () => false;
    expect(await appCacheDir(dir, 'idx', {}, never)).toEqual({ dir: join(dir, 'idx') });
    expect(await appCacheDir(dir, '/data/idx', {}, never)).toEqual({ dir: '/data/idx' });
  });

  it('uses .irserve-cache beside a writable config, without creating it', async () => {
    const dir = await configDir();
    expect(await appCacheDir(dir, undefined, {})).toEqual({ dir: join(dir, '.irserve-cache') });
    expect(existsSync(join(dir, '.irserve-cache'))).toBe(false);
  });

  it('looks up through folders that do not exist yet', async () => {
    const dir = join(await configDir(), 'not', 'yet');
    expect((await appCacheDir(dir, undefined, {})).fallbackFrom).toBeUndefined();
  });

  it("falls back to the user's cache when the config's folder is read-only", async () => {
    const dir = await configDir();
    const env = { XDG_CACHE_HOME: join(dir, 'xdg') };
    const readOnly = async (path: string) => !path.startsWith(dir);
    expect(await appCacheDir(dir, undefined, env, readOnly)).toEqual({
      dir: join(dir, 'xdg', 'irserve', 'apps', hash16(dir)),
      fallbackFrom: join(dir, '.irserve-cache'),
    });
  });
});

describe('chosenCacheDir', () => {
  it('says where indexes go when the default is not writable', async () => {
    const dir = await configDir();
    const { logger, logs } = captureLogs('info');
    const readOnly = async (path: string) => !path.startsWith(dir);
    const chosen = await chosenCacheDir(dir, undefined, { env: {}, logger, canWrite: readOnly });
    expect(chosen).toContain(join('irserve', 'apps', hash16(dir)));
    expect(logs.records).toMatchObject([
      { level: 'info', cache_dir: chosen, not_writable: join(dir, '.irserve-cache') },
    ]);
  });

  it('warns about a named cache_dir it cannot write, and keeps it', async () => {
    const dir = await configDir();
    const { logger, logs } = captureLogs('info');
    const never = async () => false;
    const chosen = await chosenCacheDir(dir, 'idx', { env: {}, logger, canWrite: never });
    expect(chosen).toBe(join(dir, 'idx'));
    expect(logs.records).toMatchObject([{ level: 'warn', cache_dir: join(dir, 'idx') }]);
  });

  it('says nothing when the directory can be written', async () => {
    const { logger, logs } = captureLogs('info');
    await chosenCacheDir(await configDir(), undefined, { env: {}, logger });
    expect(logs.records).toEqual([]);
  });
});
