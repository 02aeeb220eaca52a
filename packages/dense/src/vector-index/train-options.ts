/**
 * What training an index takes besides its vectors (`trainAndAdd`, `buildIvf`, `pretrainIvf`),
 * in a file of its own so the builders and the trainer share it without importing each other.
 */
import type { ProductQuantizer } from './pq.js';

export type TrainPhase = 'train' | 'add';

export interface TrainOptions {
  /** Fraction of the vectors that trains IVF centroids and PQ codebooks (0 < f <= 1). */
  samplingRate?: number;
  /** Seeds sampling and k-means initialization. Default 1234. */
  seed?: number;
  /** Threads for usearch work (0: all cores). */
  threads?: number;
  /** HNSW build and search breadth; faiss's defaults 40 and 16. */
  efConstruction?: number;
  efSearch?: number;
  /** IVF lists scanned per query by default (faiss: 1). */
  nprobe?: number;
  /** k-means iterations (faiss: 25). */
  kmeansIterations?: number;
  progress?: (phase: TrainPhase, done: number, total: number) => void;
  /** IVF centroids (and PQ codebooks) trained beforehand, e.g. on a GPU (see `pretrainIvf`). */
  trained?: PretrainedIvf;
}

/** IVF centroids (and PQ codebooks) trained before the vectors are added (see `pretrainIvf`). */
export interface PretrainedIvf {
  centroids: Float32Array;
  pq?: ProductQuantizer;
}
