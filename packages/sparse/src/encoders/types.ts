/** A query (and passage) encoder of the LSR engine: text in, `token -> weight` out. */
import type { BatchOptions } from 'irserve/plugin';

/** A sparse vector: vocabulary token to non-negative weight. */
export type SparseVector = Record<string, number>;

export type EncodeKind = 'query' | 'passage';

export interface SparseEncoder {
  /** Named in logs and errors: `TEI at http://gpu-1:8080`, `ONNX model models/splade`. */
  readonly description: string;
  /** The model's vocabulary (id to token), read once at start-up for the index check. */
  vocabulary(): Promise<readonly string[]>;
  /**
   * One vector per text, in order. `options` are the engine's batch options: an HTTP encoder
   * stops its call when their signal aborts (nobody waits any more); a local one never reads it.
   */
  encode(texts: string[], kind: EncodeKind, options?: BatchOptions): Promise<SparseVector[]>;
  close(): Promise<void>;
}
