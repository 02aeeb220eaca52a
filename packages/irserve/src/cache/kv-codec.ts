/**
 * JSON encoding for values in an external key-value store that round-trips exactly what JSON
 * alone would not: bytes (Uint8Array), float32 vectors (Float32Array), -0, NaN and infinities. Portable across Node versions and
 * readable with redis-cli.
 */
const BYTES = '$irserve_b64';
const NUMBER = '$irserve_num';
/** Embedding vectors: little-endian float32 bytes in base64 (exact and a third of the JSON size). */
const FLOAT32 = '$irserve_f32';

export function encodeValue(value: unknown): string {
  return JSON.stringify(value, function replacer(this: unknown, key: string, raw: unknown) {
    // JSON.stringify has already turned typed arrays into objects by the time the replacer sees
    // `raw` for nested values, so read the original from the holder.
    const original = (this as Record<string, unknown>)[key];
    if (original instanceof Float32Array)
      return {
        [FLOAT32]: Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString(
          'base64',
        ),
      };
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
      if (typeof record[FLOAT32] === 'string' && Object.keys(record).length === 1)
        return float32FromBase64(record[FLOAT32]);
      if (typeof record[NUMBER] === 'string' && Object.keys(record).length === 1)
        return Number(record[NUMBER]);
    }
    return value;
  });
}

/** A Float32Array from base64 little-endian bytes (copied: the Buffer may be pooled and unaligned). */
function float32FromBase64(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const vector = new Float32Array(Math.floor(bytes.length / 4));
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}
