import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getFileInfo } from 'prettier';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { main } from '../../src/cli/main.js';
import { testApp } from '../helpers/app.js';

const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-init-'));
  dirs.push(dir);
  await mkdir(join(dir, 'docs'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, 'docs', name), text);
  return dir;
}

const jsonl = (docs: object[]) => docs.map((doc) => JSON.stringify(doc)).join('\n') + '\n';

/** Runs `irserve ...` in process; returns the exit code and what it printed. */
async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  const code = await main(argv, {});
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

// Each case builds BM25 indexes and starts an app: generous on a busy machine.
describe('irserve init', { timeout: 90_000 }, () => {
  it('writes a config for a folder of JSONL files that then serves a search', async () => {
    const dir = await folder({
      'papers.jsonl': jsonl([
        { _id: 'p1', title: 'Neural ranking', text: 'dense retrieval with transformers' },
        { _id: 'p2', title: 'Rivers', text: 'a study of river flow and sediment' },
      ]),
      'faq 2024.jsonl': jsonl([
        { id: 'f1', contents: 'how do I reset my password' },
        { id: 'f2', contents: 'shipping takes three days' },
      ]),
      'notes.txt': 'not a corpus',
    });
    const out = join(dir, 'irserve.json');
    const result = await run(['init', join(dir, 'docs'), '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/papers: id "_id", text "text", title "title"/);
    expect(result.stdout).toMatch(/npx irserve .*irserve\.json/);
    const written = JSON.parse(await readFile(out, 'utf8'));
    expect(written.services.map((s: { name: string }) => s.name)).toEqual([
      'faq-2024-bm25',
      'papers-bm25',
      'papers-bm25-title',
    ]);
    expect(written.pipeline_aliases).toEqual({
      'papers-fused': '{papers-bm25, papers-bm25-title}RRF%100',
    });
    expect(written.collections[0].views.text.source.doc_path).toBe('docs/faq 2024.jsonl');

    const { config, configDir } = await loadConfigFile(out);
    const app = await testApp(config, { configDir, cacheDir: join(dir, 'cache') });
    try {
      const search = await app.http.inject({
        method: 'POST',
        url: '/search',
        payload: { service: 'faq-2024-bm25', query: 'password reset', limit: 1 },
      });
      expect(search.json().scores).toHaveProperty('f1');
      const fused = await app.http.inject({
        method: 'POST',
        url: '/pipeline',
        payload: { pipeline: 'papers-fused', query: 'neural retrieval', collection: 'papers' },
      });
      expect(Object.keys(fused.json().scores)[0]).toBe('p1');
      const content = await app.http.inject({
        method: 'POST',
        url: '/content',
        payload: { collection: 'papers', id: 'p2' },
      });
      expect(content.json()).toMatchObject({ title: 'Rivers' });
    } finally {
      await app.close();
    }
  });

  it('takes the fields from flags, and refuses to overwrite without --force', async () => {
    const dir = await folder({
      'c.jsonl': jsonl([{ key: 'a', head: 'H', body: 'B', extra: 'E' }]),
    });
    const out = join(dir, 'c.json');
    const args = ['init', join(dir, 'docs', 'c.jsonl'), '--out', out, '--id-field', 'key'];
    const flags = [...args, '--text-fields', 'body,extra', '--title-field', 'head'];
    expect((await run(flags)).code).toBe(0);
    const source = JSON.parse(await readFile(out, 'utf8')).collections[0].views.text.source;
    expect(source).toMatchObject({
      id_field: 'key',
      content_fields: ['body', 'extra'],
      title_field: 'head',
    });
    const again = await run(flags);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists: pass --force/);
    expect((await run([...flags, '--force'])).code).toBe(0);
  });

  it('explains what is wrong with bad input, naming the file and line', async () => {
    const dir = await folder({
      'bad.jsonl': '{"id": "1", "text": "ok"}\n{not json\n',
      'noid.jsonl': jsonl([{ text: 'no id here' }]),
      'empty.jsonl': '',
    });
    const cases: [string[], RegExp][] = [
      [[join(dir, 'docs', 'bad.jsonl')], /bad\.jsonl:2: not JSON/],
      [[join(dir, 'docs', 'noid.jsonl')], /no id field found .*pass --id_field/],
      [[join(dir, 'docs', 'empty.jsonl')], /no documents/],
      [[join(dir, 'missing')], /no such file or folder/],
      [[dir], /no \.jsonl file in this folder/],
      [
        [join(dir, 'docs', 'noid.jsonl'), '--id-field', 'nope'],
        /--id_field nope: not in every document/,
      ],
      [[], /usage: irserve init/],
    ];
    for (const [args, message] of cases) {
      const result = await run(['init', ...args, '--out', join(dir, 'x.json')]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('irserve <command> --help', () => {
  it.each([
    ['init', /^usage: irserve init <folder\|file\.jsonl>/],
    ['serve', /^usage: irserve \[serve\] <config\.json>[\s\S]*--metrics_port/],
    ['warmup', /^usage: irserve warmup <config\.json>/],
    ['eval', /^usage: irserve eval <config\.json>/],
    ['mcp', /^usage: irserve mcp <config\.json>/],
    ['--print_config_schema', /^usage: irserve --print_config_schema/],
  ])('prints the usage of %s and exits 0', async (command, usage) => {
    for (const flag of ['--help', '-h']) {
      const result = await run([command, flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(usage);
    }
  });

  it('prints the serve usage for a config path with --help', async () => {
    const result = await run(['config.json', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--log_format FORMAT/);
  });
});

describe('irserve init inside this repository (issue 39, item 19)', () => {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const inGit = spawnSync('git', ['rev-parse', '--git-dir'], { cwd: root }).status === 0;

  it.skipIf(!inGit)(
    'writes its default irserve.json where git and prettier --check ignore it',
    async () => {
      expect(spawnSync('git', ['check-ignore', '-q', 'irserve.json'], { cwd: root }).status).toBe(
        0,
      );
      expect(
        spawnSync('git', ['check-ignore', '-q', 'examples/x/irserve.json'], { cwd: root }).status,
      ).toBe(0);
      const info = await getFileInfo(join(root, 'irserve.json'), {
        ignorePath: join(root, '.prettierignore'),
      });
      expect(info.ignored).toBe(true);
    },
  );
});
