/**
 * Passage and document ids as the index stores them: a compact JSON array of strings, plus the
 * byte offset of every string (`*.offsets.u32`), so that an id is decoded when a result needs it
 * instead of the whole array at start-up. Parsing a million ids with `JSON.parse` costs 0.6-0.7 s
 * here, longer than the rest of opening; a search needs at most a few thousand of them.
 */

/** What the index and its users need of a list of ids (a string array is one too). */
export interface IdList {
  readonly length: number;
  at(index: number): string | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * The JSON array of `ids` and the offsets of its strings: `offsets[i]` is the byte of string
 * i's opening quote, `offsets[ids.length]` one past the closing bracket, so string i's literal
 * is `[offsets[i], offsets[i + 1] - 1)` (the comma or the bracket follows it).
 *
 * @example idsJson(['a', 'b']).offsets // Uint32Array [1, 5, 9]
 */
export function idsJson(ids: readonly string[]): { json: Buffer; offsets: Uint32Array } {
  const literals = ids.map((id) => JSON.stringify(id));
  const json = Buffer.from(`[${literals.join(',')}]`);
  const offsets = new Uint32Array(ids.length + 1);
  let at = 1;
  for (let i = 0; i < literals.length; i++) {
    offsets[i] = at;
    at += Buffer.byteLength(literals[i]!) + 1;
  }
  offsets[ids.length] = ids.length === 0 ? 2 : at;
  return { json, offsets };
}

/**
 * The offsets `idsJson` gives, found by scanning an array it wrote (an index built before the
 * offsets files existed); `undefined` when the text is not such a compact array of `count`
 * strings (then only a full parse can read it).
 *
 * @example scanIdOffsets(Buffer.from('["a","b"]'), 2) // Uint32Array [1, 5, 9]
 */
export function scanIdOffsets(json: Uint8Array, count: number): Uint32Array | undefined {
  if (json[0] !== 0x5b) return undefined;
  const offsets = new Uint32Array(count + 1);
  let at = 1;
  for (let i = 0; i < count; i++) {
    if (json[at] !== QUOTE) return undefined;
    offsets[i] = at;
    let j = at + 1;
    while (j < json.length && json[j] !== QUOTE) j += json[j] === BACKSLASH ? 2 : 1;
    at = j + 1;
    if (json[at] !== (i === count - 1 ? 0x5d : COMMA)) return undefined;
    at++;
  }
  if (count === 0) at = json[1] === 0x5d ? 2 : -1;
  if (at !== json.length) return undefined;
  offsets[count] = at;
  return offsets;
}

/** Ids decoded one at a time from their JSON array. */
export class IdTable implements IdList {
  readonly #json: Buffer;
  readonly #offsets: Uint32Array;

  /** `offsets` as `idsJson` gives them, for the array `json`. */
  constructor(json: Buffer, offsets: Uint32Array) {
    this.#json = json;
    this.#offsets = offsets;
  }

  get length(): number {
    return this.#offsets.length - 1;
  }

  at(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    const start = this.#offsets[index]!;
    const end = this.#offsets[index + 1]! - 1;
    const json = this.#json;
    if (json[start] !== QUOTE || json[end - 1] !== QUOTE || end - start < 2)
      throw new Error(`id ${index} is not where its offsets file says (a damaged index)`);
    const literal = json.subarray(start, end);
    // Ids rarely hold a quote or a backslash; only those need JSON's unescaping.
    return literal.includes(BACKSLASH)
      ? (JSON.parse(literal.toString('utf8')) as string)
      : json.toString('utf8', start + 1, end - 1);
  }
}

/**
 * The ids in `json` (a JSON array of `count` strings) as a list: decoded on demand through
 * `offsets` (or offsets found by a scan), parsed whole only when the text is not in the compact
 * form irserve writes. Throws naming `what` when it is not such an array.
 */
export function idListOf(
  json: Buffer,
  count: number,
  offsets: Uint32Array | undefined,
  what: string,
): IdList {
  const found = offsets ?? scanIdOffsets(json, count);
  if (found && found.length === count + 1 && found[count] === json.length)
    return new IdTable(json, found);
  return parseStringArray(json, count, what);
}

/**
 * `json` parsed whole: a JSON array of `count` strings, else an error naming `what`.
 *
 * @example parseStringArray(Buffer.from('["a"]'), 1, 'terms.json') // ['a']
 */
export function parseStringArray(json: Buffer, count: number, what: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  if (!Array.isArray(value) || value.length !== count || !value.every((v) => typeof v === 'string'))
    throw new Error(`${what} is not a list of ${count} strings`);
  return value;
}

/** Every id of `list` as an array. */
export function idArray(list: IdList): string[] {
  return Array.isArray(list)
    ? (list as string[])
    : Array.from({ length: list.length }, (_, i) => list.at(i)!);
}
