import { mkdtemp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/build/cli.js';
import { openSparseIndex } from '../../src/index/open-index.js';
import { idArray } from '../../src/index/id-table.js';

let dir: string;

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const line = (id: string, vector: Record<string, unknown>) => JSON.stringify({ id, vector });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-cli-'));
});

describe('irserve-build-sparse-index', () => {
  it('indexes a directory of .jsonl and .jsonl.gz files in name order', async () => {
    await mkdir(join(dir, 'in'));
    await writeFile(
      join(dir, 'in', 'a.jsonl'),
      line('d1::0', { cat: 1.2 }) + '\n' + line('d1::1', { cat: 0.3, dog: 2 }) + '\n',
    );
    await writeFile(join(dir, 'in', 'b.jsonl.gz'), gzipSync(line('d2_0', { dog: 0.5 }) + '\n\n'));
    await writeFile(join(dir, 'in', 'notes.txt'), 'ignored');
    const { code, out } = await run(join(dir, 'in'), join(dir, 'idx'));
    expect(code).toBe(0);
    expect(out).toMatch(/indexed 3 passages \(2 documents, 4 postings, 2 terms, quantization 50\)/);
    const { index, manifest } = await openSparseIndex(join(dir, 'idx'));
    expect(idArray(index.passageIds)).toEqual(['d1::0', 'd1::1', 'd2_0']);
    expect(idArray(index.documentIds)).toEqual(['d1', 'd2']);
    expect(Array.from(index.forwardImpacts)).toEqual([60, 15, 100, 25]);
    expect(manifest.quantization).toBe(50);
    expect(manifest.impactType).toBe('u16');
  });

  it('keeps float weights with --quantization 0 and passage ids with --passage_ids none', async () => {
    await writeFile(join(dir, 'c.jsonl'), line('d_1', { cat: 0.1 }) + '\n');
    const { code } = await run(
      join(dir, 'c.jsonl'),
      join(dir, 'idx'),
      '--quantization',
      '0',
      '--passage_ids',
      'none',
    );
    expect(code).toBe(0);
    const { index, manifest } = await openSparseIndex(join(dir, 'idx'));
    expect(manifest.impactType).toBe('f32');
    expect(index.forwardImpacts[0]).toBe(Math.fround(0.1));
    expect(idArray(index.documentIds)).toEqual(['d_1']);
  });

  it('skips bad lines naming file and line: bad JSON, NaN, negative, missing fields, duplicates, overflow', async () => {
    const lines = [
      line('ok1', { a: 1 }),
      '{"id": "x", "vector": {"a": NaN}}',
      line('neg', { a: -0.5 }),
      line('str', { a: 'NaN' }),
      JSON.stringify({ id: 'novector' }),
      JSON.stringify({ vector: { a: 1 } }),
      line('ok1', { b: 1 }),
      line('big', { a: 5000 }),
      line('ok2', { b: 2 }),
    ];
    await writeFile(join(dir, 'c.jsonl'), lines.join('\n'));
    const { code, out, err } = await run(join(dir, 'c.jsonl'), join(dir, 'idx'));
    expect(code).toBe(0);
    expect(out).toContain('skipped 7 bad lines');
    expect(err).toContain('c.jsonl:2: not valid JSON');
    expect(err).toContain('c.jsonl:3: vector["a"] is negative');
    expect(err).toContain('c.jsonl:4: vector["a"] is not a finite number');
    expect(err).toContain('c.jsonl:5: "vector" is missing');
    expect(err).toContain('c.jsonl:6: "id" is missing');
    expect(err).toContain('c.jsonl:7: passage id "ok1" appears twice');
    expect(err).toContain(
      'c.jsonl:8: vector["a"] = 5000 times quantization 50 is 250000, above 65535',
    );
  });

  it('stops after more than 10 consecutive bad lines and leaves no index', async () => {
    const lines = [line('ok', { a: 1 }), ...Array.from({ length: 11 }, () => 'garbage')];
    await writeFile(join(dir, 'c.jsonl'), lines.join('\n'));
    const { code, err } = await run(join(dir, 'c.jsonl'), join(dir, 'idx'));
    expect(code).toBe(1);
    expect(err).toContain('c.jsonl:12: not valid JSON');
    expect(err).toContain('more than 10 consecutive bad lines, stopping');
    expect(await readdir(dir)).toEqual(['c.jsonl']);
  });

  it('fails clearly on a corrupt gzip file, a missing input and an empty corpus', async () => {
    await writeFile(join(dir, 'bad.jsonl.gz'), 'not gzip at all');
    expect((await run(join(dir, 'bad.jsonl.gz'), join(dir, 'i1'))).err).toContain(
      'not a valid gzip file',
    );
    expect((await run(join(dir, 'nope.jsonl'), join(dir, 'i2'))).err).toContain('does not exist');
    await writeFile(join(dir, 'empty.jsonl'), '\n\n');
    expect((await run(join(dir, 'empty.jsonl'), join(dir, 'i3'))).err).toContain(
      'no passage could be indexed',
    );
  });

  it('replaces an earlier index but refuses a foreign non-empty directory', async () => {
    await writeFile(join(dir, 'c.jsonl'), line('p1', { a: 1 }));
    expect((await run(join(dir, 'c.jsonl'), join(dir, 'idx'))).code).toBe(0);
    await writeFile(join(dir, 'c.jsonl'), line('p1', { a: 1 }) + '\n' + line('p2', { a: 2 }));
    expect((await run(join(dir, 'c.jsonl'), join(dir, 'idx'))).code).toBe(0);
    expect((await openSparseIndex(join(dir, 'idx'))).manifest.passages).toBe(2);
    expect((await readdir(dir)).sort()).toEqual(['c.jsonl', 'idx']);
    await mkdir(join(dir, 'other'));
    await writeFile(join(dir, 'other', 'keep.txt'), 'mine');
    const refused = await run(join(dir, 'c.jsonl'), join(dir, 'other'));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('is not empty and holds no sparse index');
  });

  it('writes the impact-ordered lists only with --impact_ordered', async () => {
    await writeFile(
      join(dir, 'c.jsonl'),
      line('a', { cat: 1, dog: 2 }) + '\n' + line('b', { cat: 3 }),
    );
    expect((await run(join(dir, 'c.jsonl'), join(dir, 'plain'))).code).toBe(0);
    const plain = await openSparseIndex(join(dir, 'plain'));
    expect(plain.manifest.impactSlice).toBeUndefined();
    expect(plain.index.impactPassages).toBeUndefined();
    expect(Object.keys(plain.manifest.files).some((f) => f.startsWith('impact-ordered'))).toBe(
      false,
    );
    const { code, out } = await run(join(dir, 'c.jsonl'), join(dir, 'ordered'), '--impact_ordered');
    expect(code).toBe(0);
    expect(out).toMatch(/indexed 2 passages/);
    const ordered = await openSparseIndex(join(dir, 'ordered'));
    expect(ordered.manifest.impactSlice).toBe(65_536);
    expect(Array.from(ordered.index.impactPassages!)).toEqual([1, 0, 0]);
    expect(Array.from(ordered.index.impactImpacts!)).toEqual([150, 50, 100]);
    expect(Object.keys(ordered.manifest.files).filter((f) => !(f in plain.manifest.files))).toEqual(
      ['impact-ordered.impacts.u16', 'impact-ordered.passages.u32'],
    );
    const misuse = await run(join(dir, 'c.jsonl'), join(dir, 'x'), '--impact_ordered=yes');
    expect(misuse.code).toBe(2);
    expect(misuse.err).toMatch(/--impact_ordered takes no value/);
    expect((await run('--help')).out).toContain('--impact_ordered');
  });

  it('answers usage errors with exit code 2', async () => {
    expect((await run()).code).toBe(2);
    expect((await run('a', 'b', '--quantization', '-1')).code).toBe(2);
    expect((await run('a', 'b', '--passage_ids', 'weird')).code).toBe(2);
    expect((await run('a', 'b', '--bogus')).code).toBe(2);
    expect((await run('--help')).code).toBe(0);
  });
});
