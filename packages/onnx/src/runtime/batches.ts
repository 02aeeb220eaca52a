/** Splitting a large batch into model-sized chunks, longest first, results in input order. */

/**
 * Runs `work` on chunks of at most `size` items and returns one result per item, in the order
 * of `items`. Items are grouped by `length` (longest first) so a chunk pads little; chunks run
 * one after another so a big request never holds more than one chunk's tensors.
 *
 * @example
 * const vectors = await inChunks(texts, 32, (t) => t.length, (chunk) => encoder.embedChunk(chunk));
 */
export async function inChunks<Item, Result>(
  items: readonly Item[],
  size: number,
  length: (item: Item) => number,
  work: (chunk: Item[]) => Promise<Result[]>,
): Promise<Result[]> {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`chunk size must be >= 1, got ${size}`);
  const order = items.map((_, i) => i).sort((a, b) => length(items[b]!) - length(items[a]!));
  const results = new Array<Result>(items.length);
  for (let start = 0; start < order.length; start += size) {
    const positions = order.slice(start, start + size);
    const chunk = await work(positions.map((i) => items[i]!));
    if (chunk.length !== positions.length)
      throw new RangeError(`a chunk of ${positions.length} gave ${chunk.length} results`);
    positions.forEach((position, i) => (results[position] = chunk[i]!));
  }
  return results;
}
