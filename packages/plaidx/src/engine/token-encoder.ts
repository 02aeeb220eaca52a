/** What the PLAIDX engine needs from a ColBERT encoder, HTTP or in-process. */
import type { BatchOptions } from 'irserve/plugin';
import type { TokenMatrix } from '../search/query.js';

/** One encoded window of a passage (long passages are scored in several). */
export interface PassageWindow {
  /** Position of the passage in the encoded list. */
  passage: number;
  matrix: TokenMatrix;
}

/**
 * `options` are the engine's batch options: an HTTP encoder stops its calls when their signal
 * aborts (nobody waits any more); an in-process one never reads it.
 */
export interface TokenEncoder {
  /** One token matrix per query text. */
  encodeQueries(texts: readonly string[], options?: BatchOptions): Promise<TokenMatrix[]>;
  /** The windows of each non-empty passage (empty passages have none). */
  encodePassages(texts: readonly string[], options?: BatchOptions): Promise<PassageWindow[]>;
  /**
   * The dimension of the token vectors it produces, for the start-up check against the
   * index: from the model's output shape when static, else by encoding a probe query.
   */
  dimension(): Promise<number>;
  close(): Promise<void>;
}
