/**
 * RoutIR scores long passages in overlapping windows and keeps each passage's best window.
 * Without a tokenizer in the process (HTTP encoder), windows count whitespace-separated
 * words; every window is encoded on its own, with its own context, as RoutIR does.
 * Pre-encoded passage vectors are already contextual: they are scored whole.
 */

/**
 * Splits `text` into windows of `size` words, `stride` apart; the last reaches the end.
 *
 * @example textWindows('a b c d e', 2, 2) // ['a b', 'c d', 'e']
 */
export function textWindows(text: string, size: number, stride: number): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  if (words.length <= size) return [words.join(' ')];
  const windows: string[] = [];
  for (let start = 0; start < words.length; start += stride) {
    windows.push(words.slice(start, start + size).join(' '));
    if (start + size >= words.length) break;
  }
  return windows;
}
