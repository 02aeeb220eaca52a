/**
 * `bmp` with its block bounds summed by several threads (split-bounds.ts): forced on small
 * indexes (`minGroups: 1`), the bounds and the results are bit for bit those of one thread and
 * of exhaustive scoring, with numeric passage ids; a helper that fails to start, never starts
 * or never takes its range leaves the search on one thread with a log line, never hanging;
 * closing a searcher (and an opened LSR index) ends its threads.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startModuleWorker } from 'irserve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLsrConfig } from '../../src/engine/config.js';
import { openLsr } from '../../src/engine/opened.js';
import { preparedSearch } from '../../src/engine/strategies.js';
import type { SparseIndexData } from '../../src/index/types.js';
import { writeIndex } from '../../src/index/write-index.js';
import {
  bmpScratch,
  bmpSearch,
  closeBmpScratch,
  type BmpScratch,
} from '../../src/search/bmp/bmp-search.js';
import { Control, controlInts, helperFields } from '../../src/search/bmp/bounds-control.js';
import type { BoundsWorkerData } from '../../src/search/bmp/bounds-worker.js';
import type { BoundsThreads } from '../../src/search/bmp/split-bounds.js';
import { exhaustiveScratch, exhaustiveSearch } from '../../src/search/exhaustive.js';
import { queryTerms, type QueryTerms } from '../../src/search/query-terms.js';
import { buildFromVectors, randomVectors, seeded } from '../helpers/random.js';

const SPLIT_BOUNDS = new URL('../../src/search/bmp/split-bounds.ts', import.meta.url).href;
const ready = (data: BoundsWorkerData) =>
  Atomics.load(data.control, helperFields(data.helper).ready) === 1;

const random = seeded(44);
// Numeric ids ("358"): a ranking read from an object keyed by them would come out in id order.
const vectors = randomVectors(random, 5000, { vocabulary: 400, terms: 40, maxWeight: 3 }).map(
  (v, i) => ({ ...v, id: String((i * 7919) % 100_003) }),
);
const queryVectors = Array.from(
  { length: 12 },
  () => randomVectors(random, 1, { vocabulary: 400, terms: 30, maxWeight: 2.5 })[0]!.vector,
);

function queriesOf(index: SparseIndexData): QueryTerms[] {
  const lookup = new Map(index.terms.map((t, i) => [t, i]));
  return queryVectors.map((vector) => queryTerms(lookup, vector, index.quantization));
}

/** Starts real helpers, keeping them (and their control areas) for the test to watch. */
function keptHelpers(): {
  start: BoundsThreads['startWorker'];
  workers: Worker[];
  data: BoundsWorkerData[];
} {
  const workers: Worker[] = [];
  const data: BoundsWorkerData[] = [];
  return {
    workers,
    data,
    start: (d) => {
      data.push(d);
      const worker = startModuleWorker(SPLIT_BOUNDS, './bounds-worker.js', d);
      workers.push(worker);
      return worker;
    },
  };
}

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 20_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const exited = (worker: Worker) =>
  new Promise<void>((resolve) => {
    if (worker.threadId === -1) resolve();
    else worker.once('exit', () => resolve());
  });

function expectSameAnswers(index: SparseIndexData, scratch: BmpScratch, one: BmpScratch): void {
  const reference = exhaustiveScratch(index);
  for (const query of queriesOf(index)) {
    for (const k of [1, 10, 100, 1000]) {
      const split = bmpSearch(query, { k }, scratch);
      const bounds = scratch.matrix.kernel.bounds.slice();
      const single = bmpSearch(query, { k }, one);
      expect(bounds).toEqual(one.matrix.kernel.bounds);
      const exhaustive = exhaustiveSearch(index, query, { k }, reference);
      for (const other of [single, exhaustive]) {
        expect(Array.from(split.ids)).toEqual(Array.from(other.ids));
        expect(Array.from(split.scores)).toEqual(Array.from(other.scores));
      }
    }
  }
}

describe('bmp: block bounds summed by several threads', () => {
  for (const [threads, quantization] of [
    [2, 50],
    [3, 0],
  ] as const) {
    it(`${threads} threads return the bounds and results of one (quantization ${quantization})`, async () => {
      const index = buildFromVectors(vectors, { quantization, passageIds: 'none' });
      const helpers = keptHelpers();
      const scratch = bmpScratch(index, {
        threads: { threads, minGroups: 1, startWorker: helpers.start },
      });
      try {
        await until(() => scratch.split!.threads === threads);
        expect(scratch.matrix.kernel.groups).toBeGreaterThan(threads);
        expectSameAnswers(index, scratch, bmpScratch(index));
      } finally {
        await closeBmpScratch(scratch);
      }
      await Promise.all(helpers.workers.map(exited));
    });
  }

  it('a helper alone sums every chunk of a generation as the search thread would', async () => {
    const index = buildFromVectors(vectors, { quantization: 50 });
    const one = bmpScratch(index, { denseShare: 0 });
    const kernel = one.matrix.kernel;
    const control = new Int32Array(new SharedArrayBuffer(4 * controlInts(1)));
    const chunks = 7;
    const data = { layout: kernel.layout, control, helper: 0, chunks, groups: kernel.groups };
    const worker = startModuleWorker(SPLIT_BOUNDS, './bounds-worker.js', data);
    try {
      await until(() => ready(data));
      for (const [q, query] of queriesOf(index).entries()) {
        bmpSearch(query, { k: 10 }, one); // sets the query's rows in the kernel
        const max = kernel.sum(); // the dense bounds alone
        const expected = kernel.bounds.slice();
        kernel.bounds.fill(-1);
        control[Control.terms] = kernel.terms;
        control[Control.finished] = 0;
        control[helperFields(0).max] = 0;
        Atomics.store(control, Control.ticket, (q + 1) << 16);
        Atomics.store(control, Control.gen, q + 1);
        Atomics.notify(control, Control.gen);
        await until(() => Atomics.load(control, Control.finished) === chunks);
        expect(control[helperFields(0).max]).toBe(max);
        expect(kernel.bounds).toEqual(expected);
      }
    } finally {
      await worker.terminate();
    }
  });

  it('stays on one thread below the size where splitting pays', async () => {
    const index = buildFromVectors(vectors, { quantization: 50 });
    const helpers = keptHelpers();
    const scratch = bmpScratch(index, { threads: { threads: 2, startWorker: helpers.start } });
    expect(scratch.split!.threads).toBe(1);
    expect(helpers.workers).toHaveLength(0);
    await closeBmpScratch(scratch);
  });

  const failures: [string, BoundsThreads['startWorker'], RegExp][] = [
    [
      'fails to start',
      () => new Worker('throw new Error("no thread for you")', { eval: true }),
      /failed \(no thread for you\): the search thread sums them alone/,
    ],
    [
      'cannot be created',
      () => {
        throw new Error('out of threads');
      },
      /did not start \(Error: out of threads\)/,
    ],
  ];
  for (const [what, startWorker, line] of failures) {
    it(`falls back to one thread, with a log line, when a helper ${what}`, async () => {
      const index = buildFromVectors(vectors, { quantization: 50 });
      const logged: string[] = [];
      const scratch = bmpScratch(index, {
        threads: { threads: 2, minGroups: 1, startWorker, log: (l) => logged.push(l) },
      });
      await until(() => logged.length > 0);
      expect(logged).toEqual([expect.stringMatching(line)]);
      expect(scratch.split!.threads).toBe(1);
      expectSameAnswers(index, scratch, bmpScratch(index));
      await closeBmpScratch(scratch);
    });
  }

  it('sums alone, without waiting, beside a helper that says it is ready but never sums', async () => {
    const index = buildFromVectors(vectors, { quantization: 50 });
    // Ready at once, then never looks at its control area again.
    const idle = (data: BoundsWorkerData) =>
      new Worker(
        'const { workerData: d } = require("node:worker_threads"); Atomics.store(d.control, d.ready, 1); setInterval(() => {}, 1000);',
        { eval: true, workerData: { ...data, ready: helperFields(data.helper).ready } },
      );
    const scratch = bmpScratch(index, {
      threads: { threads: 2, minGroups: 1, startWorker: idle },
    });
    try {
      await until(() => scratch.split!.threads === 2);
      expectSameAnswers(index, scratch, bmpScratch(index));
    } finally {
      await closeBmpScratch(scratch);
    }
  });
});

describe('bmp threads of a searcher end when it closes', () => {
  let dir: string;
  let indexBytes: number;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-bmp-threads-'));
    const manifest = await writeIndex(
      buildFromVectors(vectors, { quantization: 50 }),
      join(dir, 'index'),
      {
        passageIds: 'none',
      },
    );
    indexBytes = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('preparedSearch', async () => {
    const index = buildFromVectors(vectors, { quantization: 50 });
    const helpers = keptHelpers();
    const prepared = preparedSearch(index, 'bmp', undefined, {
      threads: 2,
      minGroups: 1,
      startWorker: helpers.start,
    });
    await prepared.ready;
    await until(() => helpers.data.every(ready));
    const one = bmpScratch(index);
    for (const query of queriesOf(index)) {
      const hits = prepared.search(query, { k: 10 });
      expect(Array.from(hits.scores)).toEqual(Array.from(bmpSearch(query, { k: 10 }, one).scores));
    }
    await prepared.close();
    expect(helpers.workers).toHaveLength(1);
    await Promise.all(helpers.workers.map(exited));
  });

  for (const [prepare, paged] of [
    ['start', false],
    ['background', false],
    ['start', true], // served from its files
  ] as const) {
    it(`openLsr (prepare ${prepare}${paged ? ', served from its files' : ''})`, async () => {
      const memoryBudget = paged ? indexBytes - 1 : undefined;
      const helpers = keptHelpers();
      const opened = await openLsr(join(dir, 'index'), undefined, 'bmp', prepare, {
        memoryBudget,
        threads: { threads: 2, minGroups: 1, startWorker: helpers.start },
      });
      await opened.prepared;
      expect(opened.storage).toBe(paged ? 'paged' : 'memory');
      if (paged) expect(opened.paged?.search).toBe('bmp');
      await until(() => helpers.data.length === 1 && ready(helpers.data[0]!));
      const query = queryTerms(opened.lookup, queryVectors[0]!, opened.head.quantization);
      expect(opened.search(query, { k: 10 }).ids.length).toBe(10);
      await opened.close();
      await Promise.all(helpers.workers.map(exited));
    });
  }
});

describe('config.threads', () => {
  it('is a whole number of threads from 1, absent by default', () => {
    expect(parseLsrConfig({ index_path: 'i', threads: 2 }).threads).toBe(2);
    expect(parseLsrConfig({ index_path: 'i' }).threads).toBeUndefined();
    for (const threads of [0, 1.5, 'two'])
      expect(() => parseLsrConfig({ index_path: 'i', threads })).toThrow(/threads/);
  });
});
