/**
 * Sizes as people write them in configs and on command lines (`8GiB`, `512MB`, `1.5 GiB`, a
 * plain number of bytes), and back.
 */

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** The pattern of a size written as text (what `parseByteSize` reads). */
export const BYTE_SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)?\s*$/i;

/**
 * Bytes of a size: a number of bytes, or text such as `8GiB`, `512 MB`, `1.5gib`; undefined when
 * the text is not a size.
 *
 * @example parseByteSize('8GiB') // 8589934592
 */
export function parseByteSize(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = BYTE_SIZE_PATTERN.exec(value);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
}

/**
 * A size for people: GiB, MiB or KiB with one decimal.
 *
 * @example formatBytes(1610612736) // '1.5 GiB'
 */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const)
    if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
  return `${bytes} B`;
}
