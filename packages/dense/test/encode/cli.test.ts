import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/encode/cli.js';
import { readShard } from '../../src/formats/index.js';
import { main as buildMain } from '../../src/build/cli.js';
import { openIndex } from '../../src/vector-index/index.js';
import { DOCS, TINY_BERT, embedDirect } from '../encoder/local-world.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), interactive: false },
  };
}

describe('irserve-encode', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-encode-'));
    const lines = DOCS.map((d) => JSON.stringify({ id: d.id, title: '', text: d.text }));
    lines.splice(2, 0, JSON.stringify({ id: 'empty', text: '' }));
    await writeFile(join(dir, 'corpus.jsonl'), lines.join('\n') + '\n');
    await writeFile(join(dir, 'corpus.jsonl.gz'), gzipSync(lines.join('\n') + '\n'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('JSONL corpus -> .npy shards -> irserve-build-index -> an index of the same vectors', async () => {
    const run = io();
    const shards = join(dir, 'shards');
    const code = await main(
      [
        '--model',
        TINY_BERT,
        '--passage_prompt',
        'passage: {passage}',
        '--docs_per_file',
        '2',
        '--batch_size',
        '2',
        join(dir, 'corpus.jsonl'),
        shards,
      ],
      run.io,
    );
    expect(run.err.filter((l) => !l.startsWith('encode'))).toEqual([]);
    expect(code).toBe(0);
    expect(run.out[0]).toMatch(/encoded 5 documents \(dim 32\) into 3 shard\(s\)/);
    expect(await readdir(shards)).toEqual([
      'shard-00000.npy',
      'shard-00001.npy',
      'shard-00002.npy',
    ]);
    const first = await readShard(join(shards, 'shard-00000.npy'));
    expect(first.ids).toEqual(['d1', 'd2']);
    const [expected] = await embedDirect([`passage: ${DOCS[0]!.text}`]);
    expect(
      Math.max(...first.features.subarray(0, 32).map((x, i) => Math.abs(x - expected![i]!))),
    ).toBeLessThan(1e-5);
    const index = join(dir, 'index');
    expect(await buildMain([shards, index], io().io)).toBe(0);
    expect((await openIndex(index, { threads: 1 })).ids).toEqual(DOCS.map((d) => d.id));
  });

  it('reads gzip and writes float16 shards', async () => {
    const shards = join(dir, 'shards16');
    expect(
      await main(
        ['--model', TINY_BERT, '--dtype', 'float16', join(dir, 'corpus.jsonl.gz'), shards],
        io().io,
      ),
    ).toBe(0);
    expect((await readShard(join(shards, 'shard-00000.npy'))).count).toBe(5);
  });

  it('reads a collection of an irserve config', async () => {
    const config = {
      collections: [
        {
          name: 'tiny',
          views: {
            text: {
              kind: 'text',
              source: {
                source: 'text_jsonl',
                doc_path: 'corpus.jsonl',
                id_field: 'id',
                content_fields: ['text'],
              },
            },
          },
        },
      ],
      services: [],
    };
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
    const run = io();
    const code = await main(
      [
        '--config',
        join(dir, 'config.json'),
        '--collection',
        'tiny',
        '--model',
        TINY_BERT,
        join(dir, 'from-collection'),
      ],
      run.io,
    );
    expect(run.err.filter((l) => !l.startsWith('encode'))).toEqual([]);
    expect(code).toBe(0);
    expect((await readShard(join(dir, 'from-collection', 'shard-00000.npy'))).ids).toEqual(
      DOCS.map((d) => d.id),
    );
  });

  it.each([
    [[], 2, /--model is required/],
    [['--model', TINY_BERT], 2, /expected <corpus\.jsonl> and <output_dir>/],
    [
      ['--model', TINY_BERT, '--config', 'c.json', 'out'],
      2,
      /--config and --collection go together/,
    ],
    [['--model', TINY_BERT, '--pooling', 'median', 'a', 'b'], 2, /--pooling must be/],
    [
      ['--model', TINY_BERT, '--batch_size', 'x', 'a', 'b'],
      2,
      /--batch_size must be a non-negative integer/,
    ],
    [['--model', TINY_BERT, '--passage_prompt', 'p:', 'a', 'b'], 2, /must contain \{passage\}/],
    [['--model', TINY_BERT, '--bogus', 'a', 'b'], 2, /bogus/],
    // A model that cannot be found is a configuration mistake: exit 2, as irserve's own.
    [
      ['--model', 'no/such', 'corpus.jsonl', 'out'],
      2,
      /--model: model no\/such is not in the Hugging Face cache/,
    ],
  ])('%j exits %i with a one-line error', async (argv, status, message) => {
    const run = io();
    const args = argv.map((a) =>
      a === 'corpus.jsonl' ? join(dir, a) : a === 'out' ? join(dir, 'never') : a,
    );
    expect(await main(args, run.io)).toBe(status);
    expect(run.err.join('\n')).toMatch(message);
  });

  it('a corpus line that is not JSON names the line', async () => {
    await writeFile(join(dir, 'bad.jsonl'), '{"id":"a","text":"x"}\nnot json\n');
    const run = io();
    expect(
      await main(['--model', TINY_BERT, join(dir, 'bad.jsonl'), join(dir, 'bad-out')], run.io),
    ).toBe(1);
    expect(run.err.join('\n')).toMatch(/bad\.jsonl:2: not a JSON object/);
  });
});
