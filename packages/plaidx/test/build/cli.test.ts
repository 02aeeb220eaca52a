import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_PLAID_INDEX, main } from '../../src/build/cli.js';
import { formatHelp } from 'irserve/plugin';
import { openPlaidIndex } from '../../src/index/plaid-index.js';
import { readPassageMapping } from '../../src/engine/passage-mapping.js';
import { FIXTURES } from '../helpers.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), interactive: false },
  };
}

describe('irserve-build-plaid-index', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plaid-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('builds from numpy-written shards (.npz and a pickled-dict .npy with float16 features)', async () => {
    const { out, err, io: cliIo } = io();
    const code = await main(
      [`${FIXTURES}shards`, join(dir, 'index'), '--nbits', '4', '--partitions', '8'],
      cliIo,
    );
    expect(err.join('\n')).toMatch(/k-means \(8 centroids/);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/built a PLAID index \(nbits 4, 8 centroids\) over 16 passages/);
    const index = await openPlaidIndex(join(dir, 'index'));
    expect(index.numPassages).toBe(16);
    expect(index.dim).toBe(16);
    const docs = await readPassageMapping(join(dir, 'index', 'mapping.tsv'), 16, true);
    expect(docs.slice(0, 4)).toEqual(['doc0', 'doc0', 'doc1', 'doc1']);
    expect(docs.at(-1)).toBe('doc7');
  });

  it('builds from a shard whose doclens and ids are Python lists, as ColBERT saves them', async () => {
    const { out, err, io: cliIo } = io();
    const code = await main(
      [`${FIXTURES}shards-list`, join(dir, 'lists'), '--nbits', '2', '--partitions', '4'],
      cliIo,
    );
    expect(err.join('\n')).not.toMatch(/must be/);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/over 5 passages/);
    const index = await openPlaidIndex(join(dir, 'lists'));
    expect(Array.from(index.doclens)).toEqual([2, 3, 2, 5, 5]);
  });

  it('takes --memory_budget and --threads, and reports them with the peak RSS', async () => {
    const { out, io: cliIo } = io();
    const argv = [`${FIXTURES}shards`, join(dir, 'budget'), '--partitions', '8'];
    expect(await main([...argv, '--memory_budget', '256KiB', '--threads', '1'], cliIo)).toBe(0);
    expect(out[0]).toMatch(
      /peak RSS [\d.]+ [MG]iB \(1 threads, memory budget 256\.0 KiB, \d+ IVF runs written to disk\)/,
    );
    const bad = io();
    expect(await main([...argv, '--memory_budget', 'lots'], bad.io)).toBe(2);
    expect(bad.err[0]).toMatch(/--memory_budget/);
  });

  it('assigns through a centroid graph with --centroid_graph and records it', async () => {
    const { out, io: cliIo } = io();
    const argv = [`${FIXTURES}shards`, join(dir, 'graph'), '--partitions', '8'];
    expect(await main([...argv, '--centroid_graph', '8', '--centroid_graph_ef', '4'], cliIo)).toBe(
      0,
    );
    expect(out[0]).toMatch(
      /\(nbits 2, 8 centroids, assigned by hnsw \(M 8, efSearch 4\)\) over 16 passages, .* \(training [\d.]+s, encoding [\d.]+s\)/,
    );
    const metadata = JSON.parse(await readFile(join(dir, 'graph', 'metadata.json'), 'utf8')) as {
      config: Record<string, unknown>;
    };
    expect(metadata.config.centroid_assignment).toBe('hnsw (M 8, efSearch 4)');
  });

  it.each([
    [[], /expected <embeddings_dir> and <output_dir>, got 0/],
    [['a', 'b', '--nbits', '3'], /--nbits must be 1, 2 or 4/],
    [['a', 'b', '--partitions', 'lots'], /--partitions must be a non-negative integer/],
    [['a', 'b', '--frobnicate'], /unknown option --frobnicate/],
    [['a', 'b', '--centroid_graph', '1'], /--centroid_graph must be an integer from 2 to 512/],
    [['a', 'b', '--centroid_graph_ef', '8'], /--centroid_graph_ef needs --centroid_graph M/],
  ])('exits 2 on bad usage %j', async (argv, message) => {
    const { err, io: cliIo } = io();
    expect(await main(argv, cliIo)).toBe(2);
    expect(err[0]).toMatch(message);
  });

  it('exits 1 naming the problem: no shards, or more partitions than training tokens', async () => {
    const empty = io();
    expect(await main([dir, join(dir, 'x')], empty.io)).toBe(1);
    expect(empty.err[0]).toMatch(/no \.npy or \.npz shards/);
    const many = io();
    expect(await main([`${FIXTURES}shards`, join(dir, 'y'), '--partitions', '5000'], many.io)).toBe(
      1,
    );
    expect(many.err.at(-1)).toMatch(/--partitions 5000 needs at least as many training tokens/);
  });

  it('prints its help for --help, exit 0', async () => {
    const { out, io: cliIo } = io();
    expect(await main(['--help'], cliIo)).toBe(0);
    expect(out).toEqual([formatHelp(BUILD_PLAID_INDEX)]);
    expect(out[0]).toMatch(/^usage: irserve-build-plaid-index <embeddings_dir> <output_dir>/);
  });
});
