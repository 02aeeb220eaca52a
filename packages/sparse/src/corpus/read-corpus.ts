/**
 * Streams the passages of an encoded corpus, file by file and line by line. A bad line is
 * reported (file and line) and skipped; more than `maxConsecutiveBad` bad lines in a row stop
 * the build, as the offset-map builder of the collections does (10, the specification's bound).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { InputFile } from './input-files.js';
import { BadRecord, parseRecord, type PassageVector } from './parse-record.js';

export const MAX_CONSECUTIVE_BAD_LINES = 10;

export interface ReadCorpusOptions {
  quantization: number;
  maxConsecutiveBad?: number;
  /** Called with each bad line's message (`file:line: why`). */
  onBadLine?: (message: string) => void;
  /** Called with the compressed bytes read so far, for a progress bar. */
  onBytes?: (bytes: number) => void;
  /**
   * Takes each parsed passage (an index builder); a BadRecord it throws counts as a bad line.
   * When it returns a promise (a builder writing a run to disk), reading waits for it.
   */
  onPassage: (passage: PassageVector) => void | Promise<void>;
}

function lines(file: InputFile, onBytes: ((n: number) => void) | undefined) {
  const raw = createReadStream(file.path);
  if (onBytes) raw.on('data', (chunk) => onBytes(chunk.length));
  const text = file.gzip ? raw.pipe(createGunzip()) : raw;
  if (file.gzip) raw.on('error', (error) => text.destroy(error));
  return createInterface({ input: text, crlfDelay: Infinity });
}

/**
 * Hands every good passage of `files` to `onPassage`, in order; throws after too many
 * consecutive bad lines. Resolves to the number of passages taken.
 *
 * @example await readCorpus(files, { quantization: 50, onPassage: (p) => builder.add(p) });
 */
export async function readCorpus(files: InputFile[], options: ReadCorpusOptions): Promise<number> {
  let taken = 0;
  const limit = options.maxConsecutiveBad ?? MAX_CONSECUTIVE_BAD_LINES;
  let consecutive = 0;
  for (const file of files) {
    let line = 0;
    try {
      for await (const text of lines(file, options.onBytes)) {
        line++;
        if (text.trim() === '') continue;
        try {
          const taking = options.onPassage(parseRecord(text, options.quantization));
          if (taking) await taking;
          consecutive = 0;
          taken++;
        } catch (error) {
          if (!(error instanceof BadRecord)) throw error;
          const message = `${file.path}:${line}: ${error.message}`;
          options.onBadLine?.(message);
          if (++consecutive > limit)
            throw new Error(`${message}; more than ${limit} consecutive bad lines, stopping`);
        }
      }
    } catch (error) {
      throw gzipError(file, error) ?? error;
    }
  }
  return taken;
}

/** A clear error for a file that is not valid gzip; undefined for any other error. */
export function gzipError(file: InputFile, error: unknown): Error | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (!code.startsWith('Z_') && code !== 'ERR_ZLIB_INIT') return undefined;
  return new Error(`${file.path}: not a valid gzip file (${(error as Error).message})`);
}
