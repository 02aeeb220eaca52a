/** A query (or passage) as ColBERT sees it: one L2-normalised vector per token. */
export interface TokenMatrix {
  /** `length * dim` floats, row-major. */
  readonly vectors: Float32Array;
  readonly length: number;
  readonly dim: number;
}

/**
 * Packs rows of equal length into a {@link TokenMatrix}.
 *
 * @example tokenMatrix([[1, 0], [0, 1]]).length // 2
 */
export function tokenMatrix(rows: readonly (readonly number[] | Float32Array)[]): TokenMatrix {
  const dim = rows[0]?.length ?? 0;
  const vectors = new Float32Array(rows.length * dim);
  rows.forEach((row, i) => vectors.set(row, i * dim));
  return { vectors, length: rows.length, dim };
}
