/**
 * Encoding a chunk of vectors for the index builder, the same on any thread: what a worker
 * needs (centroids, metric, the codec's or PQ's parameters: plain data, sent once), and the
 * encoding itself, which is the in-memory build's (`encodeEntries`, the row codecs), so a
 * streamed build writes the same bytes.
 */
import { CentroidAssigner } from '../vector-index/centroid-assigner.js';
import { encodeEntries, type IvfEncoding } from '../vector-index/ivf-encode.js';
import type { ProductQuantizer } from '../vector-index/pq.js';
import { rowCodec, type RowCodec, type RowStorage } from '../vector-index/row-codec.js';
import type { Metric } from '../vector-index/types.js';
import { WorkerPool } from './worker-pool.js';

/** Everything a thread needs to encode chunks: plain data only (it crosses threads). */
export interface EncoderSetup {
  dim: number;
  metric: Metric;
  /** IVF: its centroids; flat indexes: none. */
  centroids?: Float32Array;
  storage?: { kind: RowStorage; ranges?: Float32Array };
  pq?: ProductQuantizer;
  /**
   * IVF: the caller assigns (`IVF<n>_HNSW<M>`: the centroid graph lives in usearch, which
   * worker threads cannot load) and sends each job's labels; otherwise the thread assigns.
   */
  labelsGiven?: boolean;
}

export interface EncodeJob {
  vectors: Float32Array;
  /** IVF with `labelsGiven`: the list of each vector. */
  labels?: Int32Array;
}

export interface EncodedChunk {
  /** IVF: the list of each vector. */
  labels?: Int32Array;
  /** One entry per vector, in order. */
  entries: Uint8Array;
}

/** The setup of an IVF's encoding, or of a flat codec's. */
export function encoderSetup(
  dim: number,
  metric: Metric,
  what:
    { encoding: IvfEncoding; centroids: Float32Array; labelsGiven?: boolean } | { codec: RowCodec },
): EncoderSetup {
  if ('codec' in what)
    return { dim, metric, storage: { kind: what.codec.storage, ranges: what.codec.ranges } };
  const { encoding, centroids, labelsGiven = false } = what;
  if (encoding.pq) return { dim, metric, centroids, labelsGiven, pq: encoding.pq };
  const { storage, ranges } = encoding.codec;
  return { dim, metric, centroids, labelsGiven, storage: { kind: storage, ranges } };
}

/**
 * The encoder of `setup` on this thread: one assigner (one thread), reused for every chunk,
 * unless the jobs bring their labels.
 */
export function encodeJob(setup: EncoderSetup): (job: EncodeJob) => EncodedChunk {
  const { dim, metric, centroids, pq } = setup;
  const codec = setup.storage && rowCodec(setup.storage.kind, dim, setup.storage.ranges);
  if (!centroids) {
    return ({ vectors }) => {
      const entries = new Uint8Array((vectors.length / dim) * codec!.rowBytes);
      codec!.encode(vectors, entries, 0);
      return { entries };
    };
  }
  const assigner = setup.labelsGiven ? undefined : new CentroidAssigner(centroids, dim, metric, 1);
  const encoding: IvfEncoding = pq ? { pq } : { codec: codec! };
  return ({ vectors, labels: given }) => {
    const labels = assigner?.assign(vectors) ?? given;
    if (!labels) throw new Error('an IVF chunk came without the labels its encoder expects');
    return { labels, entries: encodeEntries(vectors, labels, centroids, dim, metric, encoding) };
  };
}

/**
 * Encodes `chunks` chunks on up to `threads` worker threads: no more threads than chunks, and
 * on this thread when that leaves one (a small corpus does not wait for threads to start).
 */
export class ChunkEncoder {
  readonly #pool: WorkerPool<EncodeJob, EncodedChunk> | undefined;
  readonly #local: ((job: EncodeJob) => EncodedChunk) | undefined;

  constructor(setup: EncoderSetup, threads: number, chunks: number) {
    threads = Math.min(threads, chunks);
    if (threads > 1)
      this.#pool = new WorkerPool(import.meta.url, './encode-worker.js', setup, threads);
    else this.#local = encodeJob(setup);
  }

  /**
   * Encodes `vectors`, assigned to `labels` when the setup says the caller assigns (both
   * buffers are transferred to a thread: do not use them afterwards).
   */
  encode(vectors: Float32Array, labels?: Int32Array): Promise<EncodedChunk> {
    if (this.#local) return Promise.resolve(this.#local({ vectors, labels }));
    const job = { vectors: ownedCopy(vectors), labels: labels && ownedCopy(labels) };
    const transfer = [job.vectors.buffer as ArrayBuffer];
    if (job.labels) transfer.push(job.labels.buffer as ArrayBuffer);
    return this.#pool!.run(job, transfer);
  }

  async close(): Promise<void> {
    await this.#pool?.close();
  }
}

/** `a` itself when it is the whole of its buffer (so it can be transferred), else a copy. */
function ownedCopy<T extends Float32Array | Int32Array>(a: T): T {
  const own = a.byteOffset === 0 && a.byteLength === a.buffer.byteLength;
  return own ? a : (a.slice() as T);
}
