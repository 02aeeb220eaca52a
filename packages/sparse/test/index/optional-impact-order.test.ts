/**
 * The impact-ordered lists are opt-in (`--impact_ordered`): an index without them is what
 * format 2 was, byte for byte, and a format 2 index written by the code before the lists
 * existed (test/fixtures/format-2, see its README) opens and searches with every strategy that
 * does not need them.
 */
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { ArrayFile } from 'irserve/plugin';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSparseIndex } from '../../src/build/build-index.js';
import { openLsr } from '../../src/engine/opened.js';
import { boundSearch, type SearchStrategy } from '../../src/engine/strategies.js';
import { combinedChecksum } from '../../src/index/manifest.js';
import { openSparseIndex } from '../../src/index/open-index.js';
import { hasImpactOrder, type SparseIndexData } from '../../src/index/types.js';
import { queryTerms } from '../../src/search/query-terms.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/format-2', import.meta.url));
const FORMAT_2_INDEX = join(FIXTURE, 'index');
const QUERIES: Record<string, number>[] = [
  { jet: 1.5, thrust: 0.7, speed: 0.2 },
  { boundary: 2, layer: 1.1, flow: 0.4, mach: 0.9 },
  { heat: 0.3 },
  { drag: 1, lift: 1, airfoil: 1, nozzle: 1, wedge: 1, unknown: 3 },
];

let dir: string;
const logger = pino({ level: 'silent' });

async function build(name: string, impactOrdered?: boolean): Promise<string> {
  const outputDir = join(dir, name);
  const input = join(FIXTURE, 'encoded.jsonl');
  await buildSparseIndex({ input, outputDir, blockSize: 4, impactOrdered, logger });
  return outputDir;
}

/** Every strategy's top k for every query and depth, as [passage id, score] pairs. */
function answers(index: SparseIndexData, strategy: SearchStrategy): unknown[] {
  const lookup = new Map(index.terms.map((t, i) => [t, i]));
  const search = boundSearch(index, strategy);
  return QUERIES.flatMap((vector) =>
    [1, 3, 10, 100].map((k) => {
      const hits = search(queryTerms(lookup, vector, index.quantization), { k });
      return Array.from(hits.ids, (p, i) => [index.passageIds.at(p), hits.scores[i]]);
    }),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-optional-'));
});

describe('indexes with and without the impact-ordered lists', () => {
  it('opens the format 2 fixture and searches it with exhaustive, max-score, block-max, bmp and auto', async () => {
    const { index, manifest } = await openSparseIndex(FORMAT_2_INDEX);
    expect(manifest.version).toBe(2);
    expect(manifest.impactSlice).toBeUndefined();
    expect(hasImpactOrder(index)).toBe(false);
    const exhaustive = answers(index, 'exhaustive');
    expect(exhaustive.some((hits) => (hits as unknown[]).length > 0)).toBe(true);
    for (const strategy of ['max-score', 'block-max', 'bmp', 'auto'] as const)
      expect(answers(index, strategy)).toEqual(exhaustive);
  });

  it('writes, without --impact_ordered, the index the format 2 code did (as array files)', async () => {
    const built = await build('plain');
    // The same files, plus the ids' offsets (which a reader that does not know them ignores).
    const offsets = ['document-ids.offsets.u32', 'passage-ids.offsets.u32'];
    const oldNames = (await readdir(FORMAT_2_INDEX)).sort();
    expect((await readdir(built)).sort()).toEqual([...oldNames, ...offsets].sort());
    for (const name of ['terms.json', 'passage-ids.json', 'document-ids.json'])
      expect(await readFile(join(built, name))).toEqual(await readFile(join(FORMAT_2_INDEX, name)));
    const { index, manifest } = await openSparseIndex(built);
    const { index: old } = await openSparseIndex(FORMAT_2_INDEX);
    expect(manifest.version).toBe(4);
    expect(manifest.impactSlice).toBeUndefined();
    for (const key of Object.keys(old) as (keyof SparseIndexData)[]) {
      const value = old[key];
      if (ArrayBuffer.isView(value)) expect(index[key]).toEqual(value);
    }
  });

  it('adds the lists with --impact_ordered, and every strategy answers the same', async () => {
    const built = await build('ordered', true);
    const { index, manifest } = await openSparseIndex(built);
    expect(manifest.version).toBe(4);
    expect(manifest.impactSlice).toBe(65_536);
    expect(manifest.build['impactOrdered']).toBe(true);
    expect(Object.keys(manifest.files)).toEqual(
      expect.arrayContaining(['impact-ordered.passages.u32', 'impact-ordered.impacts.u16']),
    );
    expect(hasImpactOrder(index)).toBe(true);
    const exhaustive = answers(index, 'exhaustive');
    for (const strategy of ['max-score', 'block-max', 'bmp', 'impact-ordered', 'auto'] as const)
      expect(answers(index, strategy)).toEqual(exhaustive);
    const { index: old } = await openSparseIndex(FORMAT_2_INDEX);
    expect(answers(old, 'exhaustive')).toEqual(exhaustive);
  });

  it('opens a version 3 index (unreleased builds: always with the lists, raw arrays)', async () => {
    const built = await build('version-3', true);
    const path = join(built, 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    // Version 3 wrote each array raw, little-endian, with the CRC-32 of the whole file.
    for (const name of Object.keys(manifest.files).filter((n) => !n.endsWith('.json'))) {
      const file = await ArrayFile.open(join(built, name));
      const section = file.footer.sections[0]!;
      const data = await file.read(section.name, section.type);
      await file.close();
      const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      await writeFile(join(built, name), raw);
      manifest.files[name] = { bytes: raw.byteLength, crc32: crc32(raw) };
    }
    manifest.checksum = combinedChecksum(manifest.files);
    await writeFile(path, JSON.stringify({ ...manifest, version: 3 }));
    const { index } = await openSparseIndex(built);
    expect(hasImpactOrder(index)).toBe(true);
    expect(answers(index, 'impact-ordered')).toEqual(answers(index, 'exhaustive'));
  });

  it('refuses a manifest that announces the lists without listing their files', async () => {
    const built = await build('unlisted');
    const path = join(built, 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...manifest, impactSlice: 65_536 }));
    await expect(openSparseIndex(built)).rejects.toThrow(
      /manifest.json does not list impact-ordered.passages.u32|does not list impact-ordered.impacts.u16/,
    );
  });

  it('refuses search impact-ordered on an index without the lists, naming the fields and the rebuild', async () => {
    await expect(openLsr(FORMAT_2_INDEX, undefined, 'impact-ordered')).rejects.toThrow(
      /config.search is "impact-ordered" but the index at config.index_path \(.*format-2.index\) was built without the impact-ordered lists: rebuild it with `irserve-build-sparse-index <encoded corpus> .*format-2.index --impact_ordered`/,
    );
    const { index } = await openSparseIndex(FORMAT_2_INDEX);
    expect(() => boundSearch(index, 'impact-ordered')).toThrow(/no impact-ordered lists/);
    const opened = await openLsr(FORMAT_2_INDEX, undefined, 'auto');
    expect(opened.manifest.impactSlice).toBeUndefined();
  });
});
