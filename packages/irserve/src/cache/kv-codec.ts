/**
 * JSON encoding for values in an external key-value store that round-trips exactly what JSON
 * alone would not: bytes (Uint8Array), -0, NaN and infinities. Portable across Node versions and
 * readable with redis-cli.
 */
const BYTES = '$irserve_b64';
const NUMBER = '$irserve_num';

export function encodeValue(value: unknown): string {
  return JSON.stringify(value, function replacer(this: unknown, key: string, raw: unknown) {
    // JSON.stringify has already turned typed arrays into objects by the time the replacer sees
    // `raw` for nested values, so read the original from the holder.
    const original = (this as Record<string, unknown>)[key];
    if (original instanceof Uint8Array)
      return { [BYTES]: Buffer.from(original).toString('base64') };
    if (typeof original === 'number' && (!Number.isFinite(original) || Object.is(original, -0))) {
      return { [NUMBER]: Object.is(original, -0) ? '-0' : String(original) };
    }
    return raw;
  });
}

export function decodeValue(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      if (typeof record[BYTES] === 'string' && Object.keys(record).length === 1)
        return new Uint8Array(Buffer.from(record[BYTES], 'base64'));
      if (typeof record[NUMBER] === 'string' && Object.keys(record).length === 1)
        return Number(record[NUMBER]);
    }
    return value;
  });
}
