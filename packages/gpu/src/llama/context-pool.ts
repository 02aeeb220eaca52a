/**
 * A few llama.cpp contexts working through one list of inputs: each context takes the next
 * input when it is free, so `batch_size` contexts evaluate that many texts at once. Results
 * come back in input order.
 */

/**
 * Runs `work(context, item)` over `items` with every context busy until the list is done.
 *
 * @example
 * const vectors = await acrossContexts(contexts, texts, (ctx, text) => embedOne(ctx, text));
 */
export async function acrossContexts<Context, Item, Result>(
  contexts: readonly Context[],
  items: readonly Item[],
  work: (context: Context, item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async (context: Context): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(context, items[i]!);
    }
  };
  await Promise.all(contexts.map(worker));
  return results;
}
