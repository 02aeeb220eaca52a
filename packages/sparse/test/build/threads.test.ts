import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSparseIndex } from '../../src/build/build-index.js';
import { main } from '../../src/build/cli.js';
import { randomVectors, seeded } from '../helpers/random.js';

let dir: string;

/** A corpus of two files (one gzipped) with blank lines, bad lines and a repeated id. */
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-threads-'));
  const vectors = randomVectors(seeded(21), 600, { vocabulary: 500, terms: 40, maxWeight: 3 });
  const lines = vectors.map(({ id, vector }) => JSON.stringify({ id: `d${id}::0`, vector }));
  lines.splice(100, 0, '', '{"id": "bad", "vector": {"a": -1}}', lines[5]!, 'not json');
  lines.splice(450, 0, '{"id": "x"}', '  ');
  await writeFile(join(dir, 'a.jsonl'), lines.slice(0, 300).join('\n') + '\n');
  await writeFile(join(dir, 'b.jsonl.gz'), gzipSync(lines.slice(300).join('\r\n')));
});

async function build(threads: number, out: string) {
  const warnings: string[] = [];
  const report = await buildSparseIndex({
    input: dir,
    outputDir: join(dir, out),
    threads,
    batchBytes: 3000,
    logger: { info: () => {}, warn: (line) => warnings.push(line) },
  });
  return { report, warnings };
}

describe('irserve-build-sparse-index --threads', () => {
  it('builds an index byte-identical to a one-thread build, with the same bad-line reports', async () => {
    const one = await build(1, 'one');
    const three = await build(3, 'three');
    expect(three.warnings).toEqual(one.warnings);
    expect(one.warnings).toHaveLength(4);
    expect(one.warnings[0]).toMatch(/a\.jsonl:102: vector\["a"\] is negative/);
    expect(one.warnings.at(-1)).toMatch(/b\.jsonl\.gz:\d+: "vector" is missing/);
    expect(three.report.manifest.passages).toBe(600);
    const files = (await readdir(join(dir, 'one'))).sort();
    expect((await readdir(join(dir, 'three'))).sort()).toEqual(files);
    for (const name of files) {
      if (name === 'manifest.json') continue;
      const a = await readFile(join(dir, 'one', name));
      const b = await readFile(join(dir, 'three', name));
      expect(b.equals(a), name).toBe(true);
    }
    const { createdAt: _a, ...m1 } = one.report.manifest;
    const { createdAt: _b, ...m3 } = three.report.manifest;
    expect(m3).toEqual(m1);
  });

  it('stops after too many consecutive bad lines, naming file and line, as one thread does', async () => {
    const bad = Array.from({ length: 30 }, () => 'nope').join('\n');
    await writeFile(join(dir, 'bad.jsonl'), '{"id": "ok", "vector": {"a": 1}}\n' + bad);
    const errors = await Promise.all(
      [1, 2].map((threads) =>
        buildSparseIndex({
          input: join(dir, 'bad.jsonl'),
          outputDir: join(dir, `bad-${threads}`),
          threads,
          batchBytes: 16,
          logger: { info: () => {}, warn: () => {} },
        }).catch((error: Error) => error.message),
      ),
    );
    expect(errors[0]).toMatch(/bad\.jsonl:12: not valid JSON.*more than 10 consecutive bad lines/);
    expect(errors[1]).toBe(errors[0]);
  });

  it('refuses a bad --threads or --reorder value', async () => {
    const err: string[] = [];
    const io = { out: () => {}, err: (line: string) => err.push(line) };
    expect(await main([dir, join(dir, 'x'), '--threads', '0'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/--threads must be an integer from 1 to 256/);
    expect(await main([dir, join(dir, 'x'), '--reorder', 'bp'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/--reorder must be none or cluster/);
  });
});
