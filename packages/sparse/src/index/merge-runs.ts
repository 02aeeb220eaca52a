/**
 * The merge of a bounded-memory build: every run (in corpus order) is read term by term, and
 * term t's postings from run after run make its inverted list, passages ascending. Each list
 * goes to the inverted files, gives the term's block maxima and, when asked for, its
 * impact-ordered copy: the arrays an in-memory build lays out, in the same order.
 */
import { Growable } from './growable.js';
import { impactOrderList } from './impact-order.js';
import { appendBlockMaxima } from './index-builder.js';
import type { IndexWriter } from './index-writer.js';
import type { RunSource } from './spill-runs.js';
import type { Impacts } from './types.js';

export interface MergeOptions {
  vocabularySize: number;
  blockSize: number;
  /** Passages per slice of the impact-ordered lists; undefined: no such lists. */
  impactSlice: number | undefined;
  /** Told of each term merged (a progress bar). */
  onTerm?: (term: number) => void;
}

/** Merges `runs` into the inverted, block-max and impact-ordered files of `out`. */
export async function mergeRuns(
  runs: RunSource[],
  out: IndexWriter,
  options: MergeOptions,
): Promise<void> {
  const { vocabularySize, blockSize, impactSlice } = options;
  const f32 = out.impactType === 'f32';
  const invertedOffsets = new Uint32Array(vocabularySize + 1);
  const blockOffsets = new Uint32Array(vocabularySize + 1);
  let list = listBuffers(1024, f32);
  let sorted = impactSlice === undefined ? undefined : listBuffers(1024, f32);
  const counts = new Uint32Array(65_537);
  let blocks = 0;
  for (let t = 0; t < vocabularySize; t++) {
    let n = 0;
    for (const run of runs) {
      if (run.term !== t) continue;
      const room = n + run.count;
      if (room > list.passages.length) list = grown(list, room, n);
      n += await run.take(list.passages, list.impacts, n);
    }
    invertedOffsets[t + 1] = invertedOffsets[t]! + n;
    const passages = list.passages.subarray(0, n);
    const impacts = list.impacts.subarray(0, n);
    await out.writeArray('invertedPassages', passages);
    await out.writeArray('invertedImpacts', impacts);
    const ids = new Growable(Uint32Array);
    const max = f32 ? new Growable(Float32Array) : new Growable(Uint16Array);
    appendBlockMaxima({ passages, impacts }, 0, n, blockSize, { ids, max });
    blocks += ids.length;
    blockOffsets[t + 1] = blocks;
    await out.writeArray('blockIds', ids.view());
    await out.writeArray('blockMax', max.view());
    if (sorted !== undefined) {
      if (n > sorted.passages.length) sorted = grown(sorted, n, 0);
      sorted.passages.set(passages);
      sorted.impacts.set(impacts);
      impactOrderList({ passages, impacts }, 0, n, impactSlice!, counts, sorted);
      await out.writeArray('impactPassages', sorted.passages.subarray(0, n));
      await out.writeArray('impactImpacts', sorted.impacts.subarray(0, n));
    }
    options.onTerm?.(t);
  }
  await out.writeArray('invertedOffsets', invertedOffsets);
  await out.writeArray('blockOffsets', blockOffsets);
}

interface ListBuffers {
  passages: Uint32Array;
  impacts: Impacts;
}

function listBuffers(length: number, f32: boolean): ListBuffers {
  return {
    passages: new Uint32Array(length),
    impacts: f32 ? new Float32Array(length) : new Uint16Array(length),
  };
}

/** Buffers of at least `length` (doubling), keeping the first `keep` postings. */
function grown(buffers: ListBuffers, length: number, keep: number): ListBuffers {
  const next = listBuffers(
    Math.max(length, buffers.passages.length * 2),
    buffers.impacts instanceof Float32Array,
  );
  next.passages.set(buffers.passages.subarray(0, keep));
  next.impacts.set(buffers.impacts.subarray(0, keep));
  return next;
}
