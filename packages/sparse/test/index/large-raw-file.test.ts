/**
 * Raw array files (index versions 2 and 3) load into a typed array of their elements a slice at
 * a time: no Uint8Array spans the file, so one past 4 GiB (where Node 20's Uint8Arrays stop)
 * loads. The big file has holes (a few KB of disk); the load is stopped after its first slice,
 * so the test holds a few MB (loading all of it would fill 4 GiB of memory).
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadRawArray } from '../../src/index/read-arrays.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-raw-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A file of `bytes` bytes, holes but for `marks` (byte offset -> bytes). */
async function holeyFile(name: string, bytes: number, marks: [number, Uint8Array][]) {
  const handle = await open(join(dir, name), 'w');
  await handle.truncate(bytes);
  for (const [at, data] of marks) await handle.write(data, 0, data.length, at);
  await handle.close();
}

it('loads a raw array a slice at a time, its elements at both ends, its checksum checked', async () => {
  const values = Uint32Array.from({ length: 300_000 }, (_, i) => (i * 2_654_435_761) >>> 0);
  const bytes = new Uint8Array(values.buffer);
  await holeyFile('small.u32', bytes.length, [[0, bytes]]);
  const entry = { bytes: bytes.length, crc32: crc32(bytes) };
  const loaded = await loadRawArray(dir, 'small.u32', entry, 'u32', { sliceBytes: 65_536 });
  expect(loaded).toBeInstanceOf(Uint32Array);
  expect(loaded.length).toBe(values.length);
  expect(Buffer.compare(new Uint8Array(loaded.buffer), bytes)).toBe(0);
  await expect(
    loadRawArray(dir, 'small.u32', { ...entry, crc32: entry.crc32 ^ 1 }, 'u32'),
  ).rejects.toThrow(/small.u32 does not match its checksum/);
  await expect(loadRawArray(dir, 'small.u32', { ...entry, bytes: 6 }, 'u32')).rejects.toThrow(
    /partial element/,
  );
});

it('starts loading a raw array past 4 GiB into one typed array (no Uint8Array of the whole file)', async () => {
  const bytes = 2 ** 32 + 16;
  await holeyFile('big.u16', bytes, [[bytes - 2, Uint8Array.of(7, 0)]]);
  const stop = new AbortController();
  const loading = loadRawArray(dir, 'big.u16', { bytes, crc32: 0 }, 'u16', {
    sliceBytes: 1 << 20,
    signal: stop.signal,
  });
  // Stopped once its first slice is read (the rest would fill 4 GiB of memory): the array
  // past 4 GiB was allocated and reading began, where a Uint8Array of the file would throw.
  setImmediate(() => stop.abort(new Error('stopped after the first slices')));
  await expect(loading).rejects.toThrow('stopped after the first slices');
});
