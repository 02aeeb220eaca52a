/**
 * Finds the id of one JSONL line. A fast path reads `{"<id_field>": "<id>" ... }` straight from
 * the bytes (the id is the first key, a plain string or integer, and the line ends with `}`);
 * any other line is parsed with JSON.parse. A line is "bad" when it is not a JSON object, and
 * "no-id" when it is one without a string or number id (a wrong `id_field`, most often).
 */

/** The id's bytes: a range of the line, or a separate buffer (ids that needed decoding). */
export type LineId = { start: number; end: number } | { bytes: Uint8Array };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

function skipSpace(line: Uint8Array, pos: number, end: number): number {
  while (pos < end && isSpace(line[pos])) pos++;
  return pos;
}

/** Fast path; undefined when the line needs the full parser. */
function fastId(line: Uint8Array, start: number, end: number, key: Uint8Array): LineId | undefined {
  let p = skipSpace(line, start, end);
  if (line[p] !== 0x7b) return undefined;
  p = skipSpace(line, p + 1, end);
  if (line[p] !== QUOTE) return undefined;
  p++;
  for (let i = 0; i < key.length; i++, p++) if (line[p] !== key[i]) return undefined;
  if (line[p] !== QUOTE) return undefined;
  p = skipSpace(line, p + 1, end);
  if (line[p] !== 0x3a) return undefined;
  p = skipSpace(line, p + 1, end);
  let last = end - 1;
  while (last > p && isSpace(line[last])) last--;
  if (line[last] !== 0x7d) return undefined;
  if (line[p] === QUOTE) {
    const from = p + 1;
    for (let q = from; q < last; q++) {
      const byte = line[q]!;
      if (byte === QUOTE) return q > from ? { start: from, end: q } : undefined;
      if (byte === BACKSLASH || byte < 0x20) return undefined;
    }
    return undefined;
  }
  let q = p;
  if (line[q] === 0x2d) q++;
  const digits = q;
  while (q < last && line[q]! >= 0x30 && line[q]! <= 0x39) q++;
  const plain = q > digits && q - digits < 16 && (line[digits] !== 0x30 || q - digits === 1);
  const after = skipSpace(line, q, end);
  if (plain && (line[after] === 0x2c || after === last)) return { start: p, end: q };
  return undefined;
}

/** The line `[start, end)` parsed, when it is a JSON object. */
export function parseObjectLine(
  line: Uint8Array,
  start: number,
  end: number,
): Record<string, unknown> | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(
      Buffer.from(line.buffer, line.byteOffset + start, end - start).toString('utf8'),
    );
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  return doc as Record<string, unknown>;
}

/** Full parse: the id, `'bad'` when the line is not a JSON object, `'no-id'` when it has none. */
function slowId(
  line: Uint8Array,
  start: number,
  end: number,
  idField: string,
): LineId | 'bad' | 'no-id' {
  const doc = parseObjectLine(line, start, end);
  if (doc === undefined) return 'bad';
  const id = idOf(doc, idField);
  return id === undefined ? 'no-id' : { bytes: Buffer.from(id, 'utf8') };
}

/** The id of a parsed document as a string (numbers become their JSON text), or undefined. */
export function idOf(doc: Record<string, unknown>, idField: string): string | undefined {
  const id = doc[idField];
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return undefined;
}

/**
 * The id of the line `[start, end)` of `line`, `'empty'` for a blank line, `'bad'` when it is
 * not a JSON object, `'no-id'` when it is one without a usable `idField`.
 */
export function lineId(
  line: Uint8Array,
  start: number,
  end: number,
  idField: string,
  key: Uint8Array,
): LineId | 'empty' | 'bad' | 'no-id' {
  if (skipSpace(line, start, end) === end) return 'empty';
  return fastId(line, start, end, key) ?? slowId(line, start, end, idField);
}
