/** Truncation of token sequences to a length budget, as Hugging Face tokenizers do it. */

export type TruncationStrategy = 'longest_first' | 'only_first' | 'only_second';

/**
 * Cuts `first` (and `second`) so that together they hold at most `budget` tokens.
 * `longest_first` removes one token at a time from the longer sequence (the second on a tie),
 * so a short query keeps all its tokens and a long passage is cut. Returns new arrays.
 *
 * @example
 * truncatePair([1, 2], [3, 4, 5, 6], 4, 'longest_first') // [[1, 2], [3, 4]]
 */
export function truncatePair(
  first: readonly number[],
  second: readonly number[] | undefined,
  budget: number,
  strategy: TruncationStrategy = 'longest_first',
): [number[], number[] | undefined] {
  const room = Math.max(0, budget);
  if (second === undefined) return [first.slice(0, room), undefined];
  const excess = first.length + second.length - room;
  if (excess <= 0) return [first.slice(), second.slice()];
  if (strategy === 'only_first')
    return [first.slice(0, Math.max(0, first.length - excess)), second.slice(0, room)];
  if (strategy === 'only_second')
    return [first.slice(0, room), second.slice(0, Math.max(0, second.length - excess))];
  let a = first.length;
  let b = second.length;
  while (a + b > room) {
    if (b >= a) b--;
    else a--;
  }
  return [first.slice(0, a), second.slice(0, b)];
}
