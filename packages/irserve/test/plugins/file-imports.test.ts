import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildEngineTypes } from '../../src/app/engine-catalog.js';
import { loadPluginFile } from '../../src/plugins/file-imports.js';

const sources = (fileImports: string[]) => ({
  fileImports,
  baseDir: '/',
  extra: [],
  discoverExtras: false,
  logger: pino({ level: 'silent' }),
});
const examples = resolve(import.meta.dirname, '../../../../examples/plugins');

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-plugin-'));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('file_imports', () => {
  it('loads .mjs, .js and .ts plugins, one engine type per exported class', async () => {
    expect((await loadPluginFile('keyword-search.mjs', examples)).map((c) => c.name)).toEqual([
      'KeywordSearch',
    ]);
    expect((await loadPluginFile('batch-embedder.js', examples)).map((c) => c.name)).toEqual([
      'LetterHistogramScorer',
    ]);
    const [scorer] = await loadPluginFile('overlap-scorer.ts', examples);
    expect(scorer?.name).toBe('OverlapScorer');
    const engine = new scorer!({ name: 'o', config: {}, context: {} as never });
    await expect(engine.scoreBatch!([{ query: 'a b', passages: ['a', 'c'] }])).resolves.toEqual([
      [0.5, 0],
    ]);
  });

  it('ignores exports that are not engine classes', async () => {
    const path = await tempFile(
      'mixed.mjs',
      'export const x = 1; export function f() {} export class Helper {} export class E { async searchBatch(r) { return r.map(() => ({})); } }',
    );
    expect((await loadPluginFile(path, '/')).map((c) => c.name)).toEqual(['E']);
  });

  it('fails fast on a missing file, naming it', async () => {
    await expect(loadPluginFile('nope.mjs', examples)).rejects.toThrow(
      /cannot load nope\.mjs: file not found/,
    );
  });

  it('fails fast on a syntax error, naming the file and the reason', async () => {
    const path = await tempFile('broken.mjs', 'export class {');
    await expect(loadPluginFile(path, '/')).rejects.toThrow(/broken\.mjs: .*(SyntaxError|syntax)/i);
  });

  it('fails on a TypeScript syntax error too', async () => {
    const path = await tempFile('broken.ts', 'export class A { async searchBatch(: number) {} }');
    await expect(loadPluginFile(path, '/')).rejects.toThrow(/broken\.ts/);
  });

  it('fails when a file exports no engine, or has an unsupported extension', async () => {
    await expect(
      loadPluginFile(await tempFile('empty.mjs', 'export const a = 1;'), '/'),
    ).rejects.toThrow(/exports no engine class/);
    await expect(loadPluginFile(await tempFile('x.py', ''), '/')).rejects.toThrow(
      /unsupported extension/,
    );
  });

  it('rejects a duplicate engine name, naming both origins', async () => {
    const a = await tempFile('a.mjs', 'export class Dup { async searchBatch(r) { return []; } }');
    const b = await tempFile('b.mjs', 'export class Dup { async scoreBatch(r) { return []; } }');
    await expect(buildEngineTypes(sources([a, b]))).rejects.toThrow(
      /engine "Dup" from .*b\.mjs is already defined by .*a\.mjs/,
    );
  });

  it('rejects a plugin that redefines a built-in engine', async () => {
    const path = await tempFile(
      'rrf.mjs',
      'export class RRF { async fuseBatch(r) { return []; } }',
    );
    await expect(buildEngineTypes(sources([path]))).rejects.toThrow(/already defined by built-in/);
  });
});
