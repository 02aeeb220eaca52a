/**
 * Sizes as people write them in configs and on command lines, and back. One reading serves
 * both (`memory_budget` in a config, `--memory_budget` on a builder's command line):
 *
 * - a plain number of bytes: `4096`;
 * - binary units, powers of 1024: `K`, `M`, `G`, `T` and `KiB`, `MiB`, `GiB`, `TiB` (`64M` and
 *   `64MiB` are both 67,108,864 bytes);
 * - decimal units, powers of 1000: `KB`, `MB`, `GB`, `TB` (`64MB` is 64,000,000 bytes);
 * - `B` for bytes; a fraction (`1.5G`), spaces around the unit, any letter case.
 *
 * Fractions of a byte are dropped (the size is floored).
 */

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
  t: 2 ** 40,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

/** The pattern of a size written as text (what `parseByteSize` reads). */
export const BYTE_SIZE_PATTERN =
  /^\s*(\d+(?:\.\d+)?)\s*(b|k|m|g|t|kib|mib|gib|tib|kb|mb|gb|tb)?\s*$/i;

/** The accepted forms, for error messages: `${field} must be ${BYTE_SIZE_FORMS}`. */
export const BYTE_SIZE_FORMS =
  'a size such as 4096 (bytes), 64M or 64MiB (2^20 bytes each), 64MB (10^6), 4G, 4GiB or 1.5G';

/**
 * Bytes of a size: a number of bytes, or text such as `8GiB`, `64M`, `512 MB`, `1.5g`; undefined
 * when it is not a size.
 *
 * @example parseByteSize('64M') // 67108864
 */
export function parseByteSize(value: number | string): number | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  const match = BYTE_SIZE_PATTERN.exec(value);
  if (!match) return undefined;
  return Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
}

/**
 * `parseByteSize`, throwing `makeError(message)` (an error naming `field` and the accepted
 * forms) when `value` is not a size.
 *
 * @example byteSizeOf('4G', '--memory_budget') // 4294967296
 */
export function byteSizeOf(
  value: number | string,
  field: string,
  makeError: (message: string) => Error = (message) => new RangeError(message),
): number {
  const bytes = parseByteSize(value);
  if (bytes === undefined)
    throw makeError(`${field} must be ${BYTE_SIZE_FORMS}, got ${JSON.stringify(value)}`);
  return bytes;
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
