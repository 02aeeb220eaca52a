import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildEngineTypes } from '../../src/app/engine-catalog.js';
import { createApp } from '../../src/app.js';
import { ConfigError } from '../../src/config/load.js';
import { findExtras, loadExtra } from '../../src/plugins/extras.js';
import { OFFICIAL_EXTRAS } from '../../src/registry/official-extras.js';
import { captureLogs } from '../../src/testing/index.js';

const repoRoot = resolve(import.meta.dirname, '../../../..');
const silent = pino({ level: 'silent' });

/** Writes `node_modules/@irserve/<name>` under `root` with the given package.json and files. */
async function fakeExtra(
  root: string,
  name: string,
  manifest: Record<string, unknown>,
  files: Record<string, string> = {},
): Promise<void> {
  const dir = join(root, 'node_modules', '@irserve', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest));
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
}

/** The engine types of a config under `root` that uses `wanted` (every engine when undefined). */
function discover(root: string, wanted?: string[]) {
  return buildEngineTypes({
    fileImports: [],
    baseDir: root,
    extra: [],
    discoverExtras: true,
    logger: silent,
    ...(wanted ? { wanted } : {}),
  });
}

describe('installed @irserve extras', () => {
  it('finds the workspace extras that declare an engines module', async () => {
    const names = (await findExtras(repoRoot)).map((extra) => extra.name);
    expect(names).toContain('@irserve/dense');
  });

  it('registers the engines of an extra found beside the config, and ignores other packages', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    await fakeExtra(
      root,
      'toy',
      { name: '@irserve/toy', version: '1.2.3', irserve: { engines: './engines.mjs' } },
      {
        'engines.mjs':
          'export class ToySearch { async searchBatch(r) { return r.map(() => ({ d1: 1 })); } }\n' +
          'export const engines = [ToySearch];',
      },
    );
    await fakeExtra(root, 'not-an-extra', { name: '@irserve/not-an-extra', version: '1.0.0' });
    const extras = await findExtras(root);
    expect(extras.map((extra) => extra.name)).toContain('@irserve/toy');
    expect(extras.map((extra) => extra.name)).not.toContain('@irserve/not-an-extra');

    const app = await createApp(
      { services: [{ name: 'toy', engine: 'ToySearch', processor: 'minimal' }] },
      { configDir: root, logger: silent },
    );
    try {
      const reply = await app.http.inject({
        method: 'POST',
        url: '/search',
        payload: { service: 'toy', query: 'q', limit: 5 },
      });
      expect(reply.statusCode).toBe(200);
      expect(reply.json().scores).toEqual({ d1: 1 });
    } finally {
      await app.close();
    }
  });

  it('fails with the package name when an extra cannot be imported', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    await fakeExtra(root, 'broken', {
      name: '@irserve/broken',
      version: '0.0.1',
      irserve: { engines: './missing.js' },
    });
    const broken = (await findExtras(root)).find((extra) => extra.name === '@irserve/broken');
    expect(broken).toBeDefined();
    await expect(loadExtra(broken!)).rejects.toThrow(/extra @irserve\/broken: cannot load/);
  });

  it('rejects a file import that redefines an extra engine, naming both origins', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    await fakeExtra(
      root,
      'dup',
      { name: '@irserve/dup', version: '0.0.1', irserve: { engines: './engines.mjs' } },
      { 'engines.mjs': 'export class DupEngine { async scoreBatch(r) { return []; } }' },
    );
    const plugin = join(root, 'plugin.mjs');
    await writeFile(plugin, 'export class DupEngine { async scoreBatch(r) { return []; } }');
    await expect(
      buildEngineTypes({
        fileImports: [plugin],
        baseDir: root,
        extra: [],
        discoverExtras: true,
        logger: silent,
      }),
    ).rejects.toThrow(/engine "DupEngine" from .*plugin\.mjs is already defined by @irserve\/dup/);
  });

  it('declares, for every workspace extra, the engine names its engines module exports', async () => {
    const extras = (await findExtras(repoRoot)).filter((extra) =>
      extra.enginesModule.startsWith(join(repoRoot, 'packages')),
    );
    expect(extras.length).toBeGreaterThanOrEqual(6);
    for (const extra of extras) {
      const names = (await loadExtra(extra)).map((engineClass) => engineClass.name).sort();
      expect({ extra: extra.name, names: [...(extra.engineNames ?? [])].sort() }).toEqual({
        extra: extra.name,
        names,
      });
    }
  });

  it('imports only the extras that declare an engine the config uses', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    const explode = { 'engines.mjs': "throw new Error('this extra was imported');" };
    await fakeExtra(
      root,
      'wanted',
      {
        name: '@irserve/wanted',
        version: '0.0.1',
        irserve: { engines: './engines.mjs', engineNames: ['WantedEngine'] },
      },
      { 'engines.mjs': 'export class WantedEngine { async scoreBatch(r) { return []; } }' },
    );
    await fakeExtra(
      root,
      'unwanted',
      {
        name: '@irserve/unwanted',
        version: '0.0.1',
        irserve: { engines: './engines.mjs', engineNames: ['OtherEngine'] },
      },
      explode,
    );
    const build = (wanted: string[] | undefined) => discover(root, wanted);
    expect((await build(['WantedEngine', 'BM25'])).has('WantedEngine')).toBe(true);
    await expect(build(['OtherEngine'])).rejects.toThrow('this extra was imported');
    await expect(build(undefined)).rejects.toThrow('this extra was imported');
    // Names that are not a list of strings are no declaration: such an extra is always imported.
    for (const engineNames of ['OtherEngine', [1], null]) {
      await fakeExtra(
        root,
        'unwanted',
        {
          name: '@irserve/unwanted',
          version: '0.0.1',
          irserve: { engines: './engines.mjs', engineNames },
        },
        explode,
      );
      await expect(build(['WantedEngine'])).rejects.toThrow('this extra was imported');
    }
  });

  it('lists and suggests the engines of installed extras it did not import', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    await fakeExtra(
      root,
      'unused',
      {
        name: '@irserve/unused',
        version: '0.0.1',
        irserve: { engines: './engines.mjs', engineNames: ['ToyCrossEncoder'] },
      },
      { 'engines.mjs': "throw new Error('this extra was imported');" },
    );
    const build = (wanted: string[]) => discover(root, wanted);
    const typo = await build(['ToyCrossEncodr']);
    expect(() => typo.get('ToyCrossEncodr')).toThrow(
      /unknown engine "ToyCrossEncodr" \(did you mean "ToyCrossEncoder"\?\); known engines: BM25, .*ToyCrossEncoder \(@irserve\/unused\)/,
    );
    // The workspace extras, found beside the core package, are listed from their package.json.
    const issue = await build(['CrossEncoderReranke']);
    expect(() => issue.get('CrossEncoderReranke')).toThrow(
      /\(did you mean "CrossEncoderReranker"\?\).*Dense \(@irserve\/dense\).*PLAIDX \(@irserve\/plaidx\)/,
    );
  });

  it("knows every workspace extra's engines, to say what to install when one is missing", async () => {
    const declared: Record<string, string[]> = {};
    for (const extra of await findExtras(repoRoot)) {
      if (extra.enginesModule.startsWith(join(repoRoot, 'packages')))
        declared[extra.name] = [...(extra.engineNames ?? [])].sort();
    }
    const table = Object.fromEntries(
      Object.entries(OFFICIAL_EXTRAS).map(([name, engines]) => [name, [...engines].sort()]),
    );
    expect(table).toEqual(declared);
  });

  it('names the package to install for an engine of an extra that is not installed', async () => {
    // Extras not looked for: as on a machine where only the core package is installed.
    const config = {
      services: [
        { name: 'dense', engine: 'Dense', config: {} },
        { name: 'rerank', engine: 'CrossEncoderRerankr' },
      ],
    };
    let error: ConfigError | undefined;
    try {
      await createApp(config, { logger: silent, extras: false });
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.problems).toEqual([
      'services[0].engine: engine "Dense" is provided by @irserve/dense, which is not installed: npm install @irserve/dense (see docs/install.md)',
      expect.stringMatching(
        /^services\[1\]\.engine: unknown engine "CrossEncoderRerankr" \(did you mean "CrossEncoderReranker", which is provided by @irserve\/onnx, which is not installed: npm install @irserve\/onnx \(see docs\/install\.md\)\?\); known engines: BM25, /,
      ),
    ]);
  });

  it('warns when an extra exports other engines than it declares', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    await fakeExtra(
      root,
      'stale',
      {
        name: '@irserve/stale',
        version: '0.0.1',
        irserve: { engines: './engines.mjs', engineNames: ['StaleEngine'] },
      },
      {
        'engines.mjs':
          'export class StaleEngine { async scoreBatch(r) { return []; } }\n' +
          'export class NewEngine { async scoreBatch(r) { return []; } }',
      },
    );
    const { logger, logs } = captureLogs('warn');
    const types = await buildEngineTypes({
      fileImports: [],
      baseDir: root,
      extra: [],
      discoverExtras: true,
      logger,
      wanted: ['StaleEngine'],
    });
    expect(types.has('NewEngine')).toBe(true);
    expect(logs.find('extra declares other engine names')).toMatchObject({ level: 'warn' });
  });

  it('skips discovery when the app is told to', async () => {
    const root = await mkdtemp(join(tmpdir(), 'irserve-extras-'));
    await fakeExtra(
      root,
      'off',
      { name: '@irserve/off', version: '0.0.1', irserve: { engines: './engines.mjs' } },
      { 'engines.mjs': 'export class OffEngine { async scoreBatch(r) { return []; } }' },
    );
    const types = await buildEngineTypes({
      fileImports: [],
      baseDir: root,
      extra: [],
      discoverExtras: false,
      logger: silent,
    });
    expect(types.has('OffEngine')).toBe(false);
  });
});
