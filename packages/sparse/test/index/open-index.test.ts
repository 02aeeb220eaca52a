import { readFile, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { idArray } from '../../src/index/id-table.js';
import { openSparseIndex, startOpeningSparseIndex } from '../../src/index/open-index.js';
import { verifyChecksums } from '../../src/index/verify-checksums.js';
import { writeIndex } from '../../src/index/write-index.js';
import { buildFromVectors, randomVectors, seeded } from '../helpers/random.js';

let dir: string;
const built = buildFromVectors(
  randomVectors(seeded(11), 300, { vocabulary: 80, terms: 20, maxWeight: 3 }),
  {
    quantization: 50,
    blockSize: 16,
  },
);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-open-'));
  await writeIndex(built, join(dir, 'idx'), { passageIds: 'none' });
});

describe('sparse index files', () => {
  it('reopens exactly what was built', async () => {
    const { index, manifest } = await openSparseIndex(join(dir, 'idx'));
    expect(manifest.passages).toBe(300);
    for (const key of Object.keys(built) as (keyof typeof built)[]) {
      const value = built[key];
      if (ArrayBuffer.isView(value))
        expect(Array.from(index[key] as Uint32Array)).toEqual(Array.from(value as Uint32Array));
      else if (key === 'passageIds' || key === 'documentIds')
        expect(idArray(index[key])).toEqual(value);
      else expect(index[key]).toEqual(value);
    }
  });

  it('refuses a file whose bytes changed (checksum) or that was truncated', async () => {
    const path = join(dir, 'idx', 'forward.impacts.u16');
    const bytes = await readFile(path);
    bytes[10] = bytes[10]! ^ 0xff;
    await writeFile(path, bytes);
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
      /forward.impacts.u16 is damaged \(.*do not match their checksum/,
    );
    await writeFile(path, bytes.subarray(0, 100));
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
      /has 100 bytes, the manifest says/,
    );
    await rm(path);
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
      /cannot read forward.impacts.u16/,
    );
  });

  it('checks the head before returning it and finds a damaged file while loading the rest', async () => {
    const head = ['terms.json', 'document-ids.offsets.u32', 'passage-docs.u32'];
    for (const name of ['forward.impacts.u16', 'passage-ids.json', ...head]) {
      const path = join(dir, 'idx', name);
      const bytes = await readFile(path);
      bytes[1] = bytes[1]! ^ 0x01;
      await writeFile(path, bytes);
      const opening = startOpeningSparseIndex(join(dir, 'idx'));
      if (head.includes(name)) {
        // Nothing is served from a head whose bytes are not the ones written.
        await expect(opening).rejects.toThrow(name);
      } else {
        expect((await opening).head.passages).toBe(300);
        const opened = await opening;
        await expect(opened.load()).rejects.toThrow(
          new RegExp(`${name} (is damaged|does not match)`),
        );
        await opened.postings.close();
      }
      bytes[1] = bytes[1] ^ 0x01;
      await writeFile(path, bytes);
    }
    const opening = await startOpeningSparseIndex(join(dir, 'idx'));
    expect((await opening.load()).passageIds.length).toBe(300);
    await opening.postings.close();
  });

  it('stops a background check when its signal aborts (the index was closed)', async () => {
    const data = new Uint8Array(10_000);
    const controller = new AbortController();
    const checking = verifyChecksums('d', [{ name: 'f', data, crc32: crc32(data) }], true, {
      sliceBytes: 100,
      signal: controller.signal,
    });
    controller.abort(new Error('closed'));
    await expect(checking).rejects.toThrow('closed');
  });

  it('checksums a file slice by slice exactly as whole', async () => {
    const data = new Uint8Array(10_007).map((_, i) => (i * 7919) % 251);
    const file = { name: 'f', data, crc32: crc32(data) };
    await expect(
      verifyChecksums('d', [file], true, { sliceBytes: 1_000 }),
    ).resolves.toBeUndefined();
    await expect(
      verifyChecksums('d', [{ ...file, crc32: file.crc32 ^ 1 }], true, { sliceBytes: 1_000 }),
    ).rejects.toThrow(/d: f does not match its checksum/);
  });

  it('refuses an index from another version, a foreign manifest and a missing one', async () => {
    const manifestPath = join(dir, 'idx', 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    await writeFile(manifestPath, JSON.stringify({ ...manifest, version: 1 }));
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
      /version 1; this irserve reads versions 2, 3 and 4/,
    );
    await writeFile(manifestPath, JSON.stringify({ ...manifest, format: 'faiss' }));
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(/format is "faiss"/);
    await writeFile(manifestPath, JSON.stringify({ ...manifest, version: 5 }));
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
      /version 5; this irserve reads versions 2, 3 and 4 \(rebuild/,
    );
    for (const impactSlice of [0, -1, 1.5, '65536', null])
      for (const version of [2, 3]) {
        await writeFile(manifestPath, JSON.stringify({ ...manifest, version, impactSlice }));
        await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
          /impactSlice is (not a count|0)/,
        );
      }
    // Version 3 (unreleased builds) always had the lists; version 2 says so by impactSlice.
    await writeFile(
      manifestPath,
      JSON.stringify({ ...manifest, version: 3, impactSlice: undefined }),
    );
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(/impactSlice is not a count/);
    await writeFile(manifestPath, '{not json');
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(/not valid JSON/);
    await writeFile(manifestPath, JSON.stringify({ ...manifest, passages: 301 }));
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(
      /passage-docs has 300 entries, expected 301/,
    );
    await rm(manifestPath);
    await expect(openSparseIndex(join(dir, 'idx'))).rejects.toThrow(/has no manifest.json/);
    await expect(openSparseIndex(join(dir, 'nothing'))).rejects.toThrow(/does not exist/);
  });
});
