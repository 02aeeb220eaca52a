/**
 * Installing outside the repository exactly as docs/install.md says: `scripts/pack-all.mjs`
 * packs all eight packages (and checks what each tarball holds), and one `npm install` puts
 * every tarball into an empty project whose package.json is the one docs/install.md shows
 * (install scripts that download GPU files denied, llama.cpp's GPU builds overridden), with no
 * network but the npm registry. The install must be quiet (no engine warning on this Node, no
 * unknown npm config), take no `@irserve` package from the registry and fetch no GPU file; then
 * every installed command answers `--help`, every entry point of every package imports, the
 * schema lists every extra's engines, and the installed server answers `/avail` and a search
 * sent with the installed client. Needs the packages built (`npm run build`) and the registry
 * reachable: without a registry the test skips locally and fails in CI.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { consumerEnv, installedManifests, serveInstalled } from './helpers/installed.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../..');
const NETWORK_FAILURE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network/i;
/** What npm must not print while installing the tarballs (a user's own ~/.npmrc aside). */
const INSTALL_NOISE =
  /EBADENGINE|Unknown (project|env|cli) config|not yet covered by allowScripts|ERESOLVE/;

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The consumer package.json of docs/install.md: the first json block under its heading. */
async function documentedManifest(): Promise<Record<string, unknown>> {
  const doc = await readFile(join(ROOT, 'docs/install.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Offline-safe installs'));
  const block = /```json\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/install.md: no json block under "## Offline-safe installs"');
  return JSON.parse(block[1]!) as Record<string, unknown>;
}

async function packAll(out: string): Promise<string[]> {
  await run(process.execPath, ['scripts/pack-all.mjs', '--no-build', '--out', out], {
    cwd: ROOT,
  });
  const tarballs = (await readdir(out)).filter((file) => file.endsWith('.tgz'));
  return tarballs.map((file) => join(out, file));
}

/** Packs and installs; answers the project and npm's output, or undefined without a registry. */
async function packAndInstall(): Promise<{ project: string; output: string } | undefined> {
  dir = await mkdtemp(join(tmpdir(), 'irserve-install-'));
  const project = join(dir, 'project');
  await mkdir(project);
  const tarballs = await packAll(join(dir, 'packs'));
  expect(tarballs).toHaveLength(8);
  const manifest = { name: 'try-irserve', private: true, type: 'module' };
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ ...manifest, ...(await documentedManifest()) }, null, 2),
  );
  try {
    const env = await consumerEnv();
    const { stdout, stderr } = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs],
      { cwd: project, env, timeout: 480_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return { project, output: stdout + stderr };
  } catch (error) {
    const text = String((error as { stderr?: string }).stderr ?? error);
    if (!process.env.CI && NETWORK_FAILURE.test(text)) {
      console.warn(`pack-install test skipped: no npm registry (${text.slice(0, 200)})`);
      return undefined;
    }
    throw error;
  }
}

/** Each `@irserve` package and the core come from the tarballs, once, never from the registry. */
async function expectTarballsOnly(project: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { resolved?: string }>;
  };
  const ours = Object.entries(lock.packages).filter(([path]) =>
    /node_modules\/(irserve|@irserve\/[^/]+)$/.test(path),
  );
  expect(ours.map(([path]) => path).sort()).toEqual(
    [
      'irserve',
      '@irserve/backends',
      '@irserve/client',
      '@irserve/dense',
      '@irserve/gpu',
      '@irserve/onnx',
      '@irserve/plaidx',
      '@irserve/sparse',
    ]
      .map((name) => `node_modules/${name}`)
      .sort(),
  );
  for (const [, entry] of ours) expect(entry.resolved).toMatch(/^file:/);
}

/** onnxruntime-node's CUDA provider and llama.cpp's CUDA / Vulkan builds were not fetched. */
function expectNoGpuFiles(project: string): void {
  const modules = join(project, 'node_modules');
  const ort = join(modules, 'onnxruntime-node/bin/napi-v6/linux/x64');
  expect(existsSync(join(ort, 'libonnxruntime_providers_cuda.so'))).toBe(false);
  for (const gpu of ['linux-x64-cuda', 'linux-x64-cuda-ext', 'linux-x64-vulkan']) {
    expect(existsSync(join(modules, '@node-llama-cpp', gpu, 'bins'))).toBe(false);
  }
}

async function expectCommandsAnswer(project: string): Promise<void> {
  const manifests = await installedManifests(project);
  const bins = manifests.flatMap((manifest) => Object.keys(manifest.bin ?? {}));
  expect(bins.sort()).toEqual([
    'irserve',
    'irserve-build-index',
    'irserve-build-plaid-index',
    'irserve-build-sparse-index',
    'irserve-encode',
    'irserve-gpu-install',
  ]);
  for (const bin of bins) {
    const { stdout } = await run(join(project, 'node_modules/.bin', bin), ['--help'], {
      cwd: project,
    });
    expect(stdout, bin).toMatch(/usage/i);
  }
  const npx = await run('npx', ['--no-install', 'irserve', '--version'], {
    cwd: project,
    env: await consumerEnv(),
  });
  expect(npx.stdout.trim()).toBe('0.1.0');
}

/** Every entry point of every installed package imports in plain Node (no alias, no source). */
async function expectEntryPointsImport(project: string): Promise<void> {
  const manifests = await installedManifests(project);
  const specifiers = manifests.flatMap((manifest) =>
    Object.keys(manifest.exports ?? {})
      .filter((key) => key !== './package.json')
      .map((key) => manifest.name + key.slice(1)),
  );
  expect(specifiers.length).toBeGreaterThan(20);
  const script = `for (const s of ${JSON.stringify(specifiers)}) await import(s);\nconsole.log('ok');`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: project,
  });
  expect(stdout.trim()).toBe('ok');
  const schema = await run(join(project, 'node_modules/.bin/irserve'), ['--print-config-schema'], {
    cwd: project,
  });
  const defs = Object.keys((JSON.parse(schema.stdout) as { $defs: object }).$defs);
  const extras = manifests.flatMap((manifest) => manifest.irserve?.engineNames ?? []);
  expect(extras.length).toBeGreaterThan(10);
  for (const engine of extras) expect(defs, engine).toContain(`engine.${engine}`);
}

async function expectServesSearch(project: string): Promise<void> {
  await writeFile(
    join(project, 'docs.jsonl'),
    '{"id":"358","text":"wing flutter"}\n{"id":"12","text":"heat transfer"}\n',
  );
  const config = {
    collections: [{ name: 'docs', doc_path: 'docs.jsonl', content_field: 'text' }],
    services: [{ name: 'bm25', engine: 'BM25', config: { collection: 'docs' } }],
  };
  await writeFile(join(project, 'config.json'), JSON.stringify(config));
  const server = await serveInstalled(project, ['config.json', '--port', '0']);
  try {
    const avail = (await (await fetch(`${server.url}/avail`)).json()) as Record<string, unknown>;
    expect(avail).toMatchObject({ search: expect.arrayContaining(['bm25']) });
    await writeFile(
      join(project, 'search.mjs'),
      `import { HttpClient } from '@irserve/client';
const client = new HttpClient({ baseUrl: process.argv[2] });
console.log(JSON.stringify(await client.search({ service: 'bm25', query: 'flutter' })));`,
    );
    const { stdout } = await run(process.execPath, ['search.mjs', server.url], { cwd: project });
    expect(JSON.parse(stdout)).toMatchObject({
      service: 'bm25',
      scores: { '358': expect.any(Number) },
    });
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe('installing every package from the tarballs of pack-all', () => {
  it('installs quietly from the registry alone, runs every command and serves a search', async (context) => {
    const installed = await packAndInstall();
    if (installed === undefined) return context.skip();
    const { project, output } = installed;
    expect(output).not.toMatch(INSTALL_NOISE);
    await expectTarballsOnly(project);
    expectNoGpuFiles(project);
    await expectCommandsAnswer(project);
    await expectEntryPointsImport(project);
    await expectServesSearch(project);
  }, 600_000);
});
