/**
 * `engineContext()` and `captureLogs()` of `irserve/testing`: a complete context with the app's
 * defaults, and the log lines an engine wrote, by level.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, EngineContext } from 'irserve/plugin';
import { captureLogs, engineContext, tempDir, type TempDir } from 'irserve/testing';

let dir: TempDir;
beforeAll(async () => {
  dir = await tempDir('engine-context-');
});
afterAll(async () => dir.remove());

describe('engineContext', () => {
  it('is a complete EngineContext with the defaults an app gives', async () => {
    const context: EngineContext = engineContext();
    expect(context.configDir).toBe(resolve('.'));
    expect(context.cacheDir).toBe(join(resolve('.'), 'cache', 'services', 'engine'));
    expect(context.interactive).toBe(false);
    expect(context.resources).toBeInstanceOf(Map);
    expect(context.collections.names()).toEqual([]);
    expect(() => context.collections.get('aero')).toThrow(/collection "aero" not found/);
    expect(context.engine!('other')).toBeUndefined();
    expect(context.engine!('constructor')).toBeUndefined();
  });

  it('resolves configDir and derives cacheDir from it and the service name', () => {
    const context = engineContext({ name: 'bm25', configDir: dir.path });
    expect(context.configDir).toBe(dir.path);
    expect(context.cacheDir).toBe(join(dir.path, 'cache', 'services', 'bm25'));
    expect(engineContext({ configDir: dir.path, cacheDir: '/x' }).cacheDir).toBe('/x');
  });

  it('resolves a model path relative to configDir through its model source', async () => {
    await mkdir(dir.join('models', 'tiny'), { recursive: true });
    const context = engineContext({ configDir: dir.path });
    const resolved = await context.models.resolve({
      reference: 'models/tiny',
      kind: 'onnx',
      field: 'model_path',
    });
    expect(resolved).toMatchObject({ path: dir.join('models', 'tiny'), source: 'local' });
  });

  it('shares a resources map between contexts given one, and looks up other engines', () => {
    const resources = new Map<string, unknown>();
    const embedder: Engine = { embedBatch: async () => [] };
    const a = engineContext({ resources, engines: { embedder } });
    const b = engineContext({ resources });
    a.resources.set('pkg:model', 1);
    expect(b.resources.get('pkg:model')).toBe(1);
    expect(a.engine('embedder')).toBe(embedder);
    expect(engineContext().resources).not.toBe(resources);
  });

  it('keeps what the engine logged, by level, each line naming the service', () => {
    const context = engineContext({ name: 'lsr' });
    context.logger.debug('opening');
    context.logger.info({ storage: 'paged' }, 'index opened');
    context.logger.warn({ path: 'a.npy' }, 'stale sidecar rebuilt');
    expect(context.logs.messages()).toEqual(['opening', 'index opened', 'stale sidecar rebuilt']);
    expect(context.logs.messages('warn')).toEqual(['stale sidecar rebuilt']);
    expect(context.logs.at('info')).toEqual([
      expect.objectContaining({ level: 'info', service: 'lsr', storage: 'paged' }),
    ]);
    expect(context.logs.find(/^index/)).toMatchObject({ msg: 'index opened' });
    expect(context.logs.find('sidecar')).toMatchObject({ path: 'a.npy' });
    expect(context.logs.find('nothing')).toBeUndefined();
    context.logs.clear();
    expect(context.logs.records).toEqual([]);
  });

  it('keeps lines from logLevel up; a given logger replaces the captured one', () => {
    const quiet = engineContext({ logLevel: 'warn' });
    quiet.logger.info('hidden');
    quiet.logger.error(new Error('boom'), 'failed');
    expect(quiet.logs.messages()).toEqual(['failed']);
    expect(quiet.logs.records[0]).toMatchObject({ err: { message: 'boom' } });
    const own = captureLogs();
    const context = engineContext({ logger: own.logger, name: 'x' });
    context.logger.warn('to the given logger');
    expect(context.logs.records).toEqual([]);
    expect(own.logs.at('warn')).toEqual([expect.objectContaining({ service: 'x' })]);
    expect(engineContext({ logger: pino({ level: 'silent' }) }).logger.level).toBe('silent');
  });
});
