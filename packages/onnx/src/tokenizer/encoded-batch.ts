/** A padded batch of token ids: the tensors an encoder graph takes, row-major `[size, length]`. */

export interface EncodedBatch {
  /** Rows (texts or pairs). */
  readonly size: number;
  /** Tokens per row after padding to the longest row. */
  readonly length: number;
  readonly inputIds: BigInt64Array;
  /** 1 for a real token, 0 for padding. */
  readonly attentionMask: BigInt64Array;
  /** 0 for the first text of a pair (and single texts), 1 for the second. */
  readonly tokenTypeIds: BigInt64Array;
  /** Real tokens per row. */
  readonly lengths: readonly number[];
  /** Whether each row was cut to fit `maxLength`. */
  readonly truncated: readonly boolean[];
  /** Where padding went: after the tokens (`right`) or before them (`left`, decoder LLMs). */
  readonly paddingSide: 'left' | 'right';
}

export interface EncodedRow {
  ids: number[];
  typeIds: number[];
  truncated: boolean;
}

/**
 * Pads `rows` to the longest and packs them into int64 tensors.
 *
 * @example
 * padRows([{ ids: [2, 5, 3], typeIds: [0, 0, 0], truncated: false }], 0, 'right').length // 3
 */
export function padRows(
  rows: readonly EncodedRow[],
  padId: number,
  paddingSide: 'left' | 'right',
): EncodedBatch {
  const length = Math.max(1, ...rows.map((row) => row.ids.length));
  const size = rows.length;
  const inputIds = new BigInt64Array(size * length).fill(BigInt(padId));
  const attentionMask = new BigInt64Array(size * length);
  const tokenTypeIds = new BigInt64Array(size * length);
  rows.forEach((row, r) => {
    const start = r * length + (paddingSide === 'left' ? length - row.ids.length : 0);
    for (let i = 0; i < row.ids.length; i++) {
      inputIds[start + i] = BigInt(row.ids[i]!);
      attentionMask[start + i] = 1n;
      tokenTypeIds[start + i] = BigInt(row.typeIds[i] ?? 0);
    }
  });
  return {
    size,
    length,
    inputIds,
    attentionMask,
    tokenTypeIds,
    lengths: rows.map((row) => row.ids.length),
    truncated: rows.map((row) => row.truncated),
    paddingSide,
  };
}
