import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListRunBuffer, mergeRuns, type ListSink } from '../../src/build/list-runs.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-runs-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** Collects what a sink receives: per list, its ids and payload bytes. */
function collector() {
  const lists: { list: number; ids: number[]; payloads: number[] }[] = [];
  const sink: ListSink = {
    list: (list, ids, payloads) => {
      const view = new Int32Array(ids.slice().buffer);
      lists.push({ list, ids: [...view], payloads: [...payloads] });
      return Promise.resolve();
    },
  };
  return { lists, sink };
}

/** 100 entries over 5 lists, id i in list (i * 7) % 5, payload [i, i + 1]. */
function entries() {
  const labels = Int32Array.from({ length: 100 }, (_, i) => (i * 7) % 5);
  const ids = Int32Array.from({ length: 100 }, (_, i) => i);
  const payloads = Uint8Array.from({ length: 200 }, (_, j) => Math.floor(j / 2) + (j % 2));
  return { labels, ids, payloads };
}

describe('list runs', () => {
  it('spilled and merged runs give the lists of one buffer', async () => {
    const { labels, ids, payloads } = entries();
    const whole = new ListRunBuffer(5, 2, 100);
    whole.add(labels, ids, payloads, 0, 100);
    const want = collector();
    await whole.writeLists(want.sink);
    const runs: string[] = [];
    const small = new ListRunBuffer(5, 2, 30);
    for (let at = 0; at < 100; at += 30) {
      small.add(labels, ids, payloads, at, Math.min(30, 100 - at));
      runs.push(join(dir, `run-${at}`));
      await small.spill(runs.at(-1)!);
    }
    const got = collector();
    await mergeRuns(runs, 5, 2, got.sink, 4096);
    const merged = new Map<number, { ids: number[]; payloads: number[] }>();
    for (const { list, ids: i, payloads: p } of got.lists) {
      const entry = merged.get(list) ?? { ids: [], payloads: [] };
      entry.ids.push(...i);
      entry.payloads.push(...p);
      merged.set(list, entry);
    }
    expect(want.lists.map(({ list, ids: i, payloads: p }) => [list, i, p])).toEqual(
      [...merged].map(([list, { ids: i, payloads: p }]) => [list, i, p]),
    );
    expect(want.lists[0]!.ids).toEqual(Array.from({ length: 20 }, (_, k) => k * 5));
  });

  it('a run with empty lists reads back intact', async () => {
    // Node 20's zlib.crc32 answered 0 for an empty list's ids (a view of an empty ArrayBuffer),
    // so the run's stored checksum was wrong and a sound run was refused as damaged.
    const { labels, ids, payloads } = entries();
    const buffer = new ListRunBuffer(64, 2, 100);
    buffer.add(labels, ids, payloads, 0, 100);
    const path = join(dir, 'sparse');
    await buffer.spill(path);
    const got = collector();
    await mergeRuns([path], 64, 2, got.sink, 4096);
    expect(got.lists.map(({ list }) => list)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a truncated run is reported as damaged', async () => {
    const { labels, ids, payloads } = entries();
    const buffer = new ListRunBuffer(5, 2, 100);
    buffer.add(labels, ids, payloads, 0, 100);
    const path = join(dir, 'truncated');
    await buffer.spill(path);
    await truncate(path, 200);
    await expect(mergeRuns([path], 5, 2, collector().sink, 4096)).rejects.toThrow(
      /spill file .*truncated is damaged \(truncated\)/,
    );
  });

  it('a run of another build is refused', async () => {
    const { labels, ids, payloads } = entries();
    const buffer = new ListRunBuffer(5, 2, 100);
    buffer.add(labels, ids, payloads, 0, 100);
    const path = join(dir, 'other');
    await buffer.spill(path);
    await expect(mergeRuns([path], 6, 2, collector().sink, 4096)).rejects.toThrow(
      /list count or entry size differs/,
    );
  });
});
