/**
 * The IVF of a PLAID index as centroid -> ascending passage ids. `ivf.pid.pt` and `ivf.npy`
 * store exactly that; ColBERT's older `ivf.pt` lists embedding ids, which are mapped to their
 * passages and deduplicated here, as ColBERT's `optimize_ivf` does.
 */
import { FormatError } from '@irserve/dense';
import { expectShape } from '../formats/tensor.js';
import type { StoredIvf } from './index-files.js';

export interface PidLists {
  /** Where each centroid's list starts (length: centroids + 1; past 2^31 entries at scale). */
  offsets: Float64Array;
  pids: Int32Array;
}

/**
 * Checks the stored IVF against the index and returns it by passage.
 *
 * @example pidLists(await files.ivf(), 65536, docOffsets).pids.length
 */
export function pidLists(ivf: StoredIvf, numCentroids: number, docOffsets: Float64Array): PidLists {
  const { lengths, values } = ivf;
  const shape = [lengths.length];
  expectShape({ shape }, [numCentroids], ivf.file, `IVF list lengths (one per centroid)`);
  const offsets = new Float64Array(numCentroids + 1);
  for (let c = 0; c < numCentroids; c++) {
    if (lengths[c]! < 0) throw new FormatError(ivf.file, `negative list length at centroid ${c}`);
    offsets[c + 1] = offsets[c]! + lengths[c]!;
  }
  if (offsets[numCentroids] !== values.length)
    throw new FormatError(
      ivf.file,
      `list lengths sum to ${offsets[numCentroids]} but the IVF holds ${values.length} entries`,
    );
  const numPassages = docOffsets.length - 1;
  const limit = ivf.kind === 'pid' ? numPassages : docOffsets[numPassages]!;
  for (let i = 0; i < values.length; i++) {
    if (values[i]! < 0 || values[i]! >= limit)
      throw new FormatError(
        ivf.file,
        `entry ${values[i]} at position ${i} is out of range (${ivf.kind === 'pid' ? 'passages' : 'embeddings'}: ${limit})`,
      );
  }
  return ivf.kind === 'pid' ? { offsets, pids: values } : byPassage(values, offsets, docOffsets);
}

function byPassage(
  embeddings: Int32Array,
  offsets: Float64Array,
  docOffsets: Float64Array,
): PidLists {
  const numPassages = docOffsets.length - 1;
  const emb2pid = new Int32Array(docOffsets[numPassages]!);
  for (let p = 0; p < numPassages; p++) emb2pid.fill(p, docOffsets[p], docOffsets[p + 1]);
  const out = new Int32Array(embeddings.length);
  const newOffsets = new Float64Array(offsets.length);
  let written = 0;
  for (let c = 0; c + 1 < offsets.length; c++) {
    const list = Array.from(embeddings.subarray(offsets[c], offsets[c + 1]), (e) => emb2pid[e]!);
    list.sort((a, b) => a - b);
    let last = -1;
    for (const pid of list) if (pid !== last) out[written++] = last = pid;
    newOffsets[c + 1] = written;
  }
  return { offsets: newOffsets, pids: out.slice(0, written) };
}
