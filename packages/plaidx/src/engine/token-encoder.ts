/** What the PLAIDX engine needs from a ColBERT encoder, HTTP or in-process. */
import type { TokenMatrix } from '../search/query.js';

/** One encoded window of a passage (long passages are scored in several). */
export interface PassageWindow {
  /** Position of the passage in the encoded list. */
  passage: number;
  matrix: TokenMatrix;
}

export interface TokenEncoder {
  /** One token matrix per query text. */
  encodeQueries(texts: readonly string[]): Promise<TokenMatrix[]>;
  /** The windows of each non-empty passage (empty passages have none). */
  encodePassages(texts: readonly string[]): Promise<PassageWindow[]>;
  /**
   * The dimension of the token vectors it produces, for the start-up check against the
   * index: from the model's output shape when static, else by encoding a probe query.
   */
  dimension(): Promise<number>;
  close(): Promise<void>;
}
