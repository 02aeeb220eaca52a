/**
 * Builds an offset map by reading the corpus in large chunks with async reads: each chunk is
 * scanned synchronously (a few milliseconds) and the event loop runs between chunks, so a build
 * never blocks a running server.
 */
import { open } from 'node:fs/promises';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { IrserveError } from '../../errors.js';
import type { Progress } from '../../util/progress.js';
import { Growable } from './growable.js';
import { lineId, parseObjectLine } from './line-id.js';
import { OffsetMap, fillTable, hashBytes } from './offset-map.js';

/** More than this many consecutive unparseable lines fail the build (spec "Limits"). */
export const MAX_CONSECUTIVE_BAD_LINES = 10;
const CHUNK = 8 * 1024 * 1024;

export interface BuildStats {
  lines: number;
  /** Lines that are not JSON objects. */
  badLines: number;
  /** JSON objects without a string or number id field. */
  noIdLines: number;
  /** Where the first of those is and what fields it has, for the warning. */
  noIdExample: string | undefined;
  duplicates: number;
  /** An id that occurs more than once (the last occurrence wins), when there is one. */
  duplicateExample: string | undefined;
}

class Scanner {
  readonly idBytes = new Growable(Uint8Array, 1 << 20);
  readonly idStart = new Growable(Uint32Array);
  readonly lineStart = new Growable(Float64Array);
  readonly lineLength = new Growable(Uint32Array);
  readonly hashes = new Growable(Uint32Array);
  lineNo = 0;
  badLines = 0;
  noIdLines = 0;
  /** `line N has the fields "_id", "text"`: the first object without the id field. */
  noIdExample: string | undefined;
  #consecutiveBad = 0;
  readonly #key: Uint8Array;

  constructor(
    readonly path: string,
    readonly idField: string,
  ) {
    this.#key = Buffer.from(idField, 'utf8');
    this.idStart.push(0);
  }

  /** Scans line `[start, end)` of `buf`, which starts at byte `fileOffset` of the corpus. */
  line(buf: Buffer, start: number, end: number, fileOffset: number): void {
    this.lineNo++;
    const id = lineId(buf, start, end, this.idField, this.#key);
    if (id === 'empty') return;
    if (id === 'bad' || id === 'no-id') {
      if (id === 'bad') this.badLines++;
      else if (this.noIdLines++ === 0) this.noIdExample = this.#describe(buf, start, end);
      if (++this.#consecutiveBad > MAX_CONSECUTIVE_BAD_LINES) {
        throw new IrserveError(
          'ERR_CONFIG',
          `${this.path}: line ${this.lineNo}: more than ${MAX_CONSECUTIVE_BAD_LINES} consecutive lines are not JSON objects with a "${this.idField}" field${this.idFieldHint()}`,
        );
      }
      return;
    }
    this.#consecutiveBad = 0;
    if ('bytes' in id) {
      this.idBytes.append(id.bytes, 0, id.bytes.length);
      this.hashes.push(hashBytes(id.bytes, 0, id.bytes.length));
    } else {
      this.idBytes.append(buf, id.start, id.end);
      this.hashes.push(hashBytes(buf, id.start, id.end));
    }
    if (this.idBytes.length > 0xffffffff) throw new Error(`${this.path}: ids take more than 4 GiB`);
    this.idStart.push(this.idBytes.length);
    this.lineStart.push(fileOffset);
    this.lineLength.push(end - start);
  }

  /** What an error says when lines lacked the id field: the fields they do have. */
  idFieldHint(): string {
    if (this.noIdExample === undefined) return '';
    return ` (${this.noIdExample}: set the collection's id_field to the field that holds the ids)`;
  }

  #describe(buf: Buffer, start: number, end: number): string {
    const fields = Object.keys(parseObjectLine(buf, start, end) ?? {});
    const shown = fields.slice(0, 8).map((field) => JSON.stringify(field));
    const more = fields.length > shown.length ? `, and ${fields.length - shown.length} more` : '';
    return `line ${this.lineNo} has the fields ${shown.join(', ') || 'none'}${more} but no "${this.idField}"`;
  }
}

/** Scans every complete line in `buf[0, filled)`; returns where the unfinished tail starts. */
function scanChunk(
  scanner: Scanner,
  buf: Buffer,
  filled: number,
  base: number,
  atEof: boolean,
): number {
  let pos = 0;
  for (;;) {
    const nl = buf.indexOf(10, pos);
    if (nl < 0 || nl >= filled) break;
    scanner.line(buf, pos, nl, base + pos);
    pos = nl + 1;
  }
  if (atEof && pos < filled) {
    scanner.line(buf, pos, filled, base + pos);
    pos = filled;
  }
  return pos;
}

/**
 * Reads the corpus once and returns its offset map.
 *
 * @example
 * const { map } = await buildOffsetMap('docs.jsonl', 'id', progress);
 */
export async function buildOffsetMap(
  path: string,
  idField: string,
  progress?: Progress,
): Promise<{ map: OffsetMap; stats: BuildStats }> {
  const scanner = new Scanner(path, idField);
  const handle = await open(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let carried = 0;
    let base = 0;
    let first = true;
    for (;;) {
      if (carried === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
      const { bytesRead } = await handle.read(buf, carried, buf.length - carried, base + carried);
      const filled = carried + bytesRead;
      let skip = 0;
      if (first && filled >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) skip = 3;
      first = false;
      const view = skip > 0 ? buf.subarray(skip) : buf;
      const consumed = skip + scanChunk(scanner, view, filled - skip, base + skip, bytesRead === 0);
      progress?.tick(bytesRead);
      if (bytesRead === 0) break;
      buf.copy(buf, 0, consumed, filled);
      carried = filled - consumed;
      base += consumed;
    }
  } finally {
    await handle.close();
  }
  return finishMap(scanner);
}

async function finishMap(scanner: Scanner): Promise<{ map: OffsetMap; stats: BuildStats }> {
  if (scanner.lineStart.length === 0 && scanner.noIdLines > 0)
    throw new IrserveError(
      'ERR_CONFIG',
      `${scanner.path}: no line has a string or number "${scanner.idField}" field${scanner.idFieldHint()}`,
    );
  const arrays = {
    count: scanner.lineStart.length,
    idBytes: scanner.idBytes.finish(),
    idStart: scanner.idStart.finish(),
    lineStart: scanner.lineStart.finish(),
    lineLength: scanner.lineLength.finish(),
  };
  const { table, duplicates, firstDuplicate } = await fillTable(
    arrays,
    scanner.hashes.finish(),
    () => yieldLoop(),
  );
  const map = new OffsetMap({ ...arrays, table });
  const duplicateExample = firstDuplicate >= 0 ? map.idAt(firstDuplicate) : undefined;
  return {
    map,
    stats: {
      lines: scanner.lineNo,
      badLines: scanner.badLines,
      noIdLines: scanner.noIdLines,
      noIdExample: scanner.noIdExample,
      duplicates,
      duplicateExample,
    },
  };
}
