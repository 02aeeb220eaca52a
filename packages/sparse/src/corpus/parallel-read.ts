/**
 * `readCorpus` with the parsing spread over worker threads (`--threads N`): this thread reads
 * (and gunzips) the files and cuts them into batches of whole lines; workers parse them; the
 * batches are taken back in corpus order, so passages, bad-line reports (file and line) and the
 * consecutive-bad-lines stop are exactly those of a one-thread build, and so is the index.
 */
import { createReadStream } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { startModuleWorker } from 'irserve';
import type { InputFile } from './input-files.js';
import type { ParsedBatch } from './parse-batch.js';
import { BadRecord } from './parse-record.js';
import { MAX_CONSECUTIVE_BAD_LINES, gzipError, type ReadCorpusOptions } from './read-corpus.js';

/** Bytes of text per batch. */
export const BATCH_BYTES = 1 << 20;

type Reply = { seq: number; batch: ParsedBatch } | { seq: number; error: string };

/** Workers and the batches they have been sent, answered in any order, taken in order. */
class ParserPool {
  readonly #workers: Worker[];
  readonly #waiting = new Map<
    number,
    { resolve: (b: ParsedBatch) => void; reject: (e: Error) => void }
  >();
  #next = 0;

  constructor(threads: number, quantization: number) {
    this.#workers = Array.from({ length: threads }, () => {
      const worker = startModuleWorker(import.meta.url, './parse-worker.js', { quantization });
      worker.on('message', (reply: Reply) => this.#answer(reply));
      worker.on('error', (error) => this.#failAll(error));
      return worker;
    });
  }

  get threads(): number {
    return this.#workers.length;
  }

  /** Sends `text` to the next worker; resolves to its parse. */
  parse(text: Uint8Array<ArrayBuffer>): Promise<ParsedBatch> {
    const seq = this.#next++;
    const answer = new Promise<ParsedBatch>((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
    });
    this.#workers[seq % this.#workers.length]!.postMessage({ seq, text }, [text.buffer]);
    return answer;
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  #answer(reply: Reply): void {
    const waiting = this.#waiting.get(reply.seq);
    this.#waiting.delete(reply.seq);
    if ('error' in reply) waiting?.reject(new Error(reply.error));
    else waiting?.resolve(reply.batch);
  }

  #failAll(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

/** Where the merge stands: lines of the current file so far, and bad lines in a row. */
interface MergeState {
  line: number;
  consecutive: number;
  taken: number;
}

/** Replays one batch's lines in order: passages to `onPassage`, bad lines to `onBadLine`. */
async function merge(
  batch: ParsedBatch,
  file: InputFile,
  state: MergeState,
  options: ReadCorpusOptions,
) {
  const limit = options.maxConsecutiveBad ?? MAX_CONSECUTIVE_BAD_LINES;
  const bad = (at: number, why: string) => {
    const message = `${file.path}:${state.line + at + 1}: ${why}`;
    options.onBadLine?.(message);
    if (++state.consecutive > limit)
      throw new Error(`${message}; more than ${limit} consecutive bad lines, stopping`);
  };
  let b = 0;
  for (let i = 0; i < batch.ids.length; i++) {
    const at = batch.passageLines[i]!;
    for (; b < batch.badLines.length && batch.badLines[b]! < at; b++)
      bad(batch.badLines[b]!, batch.badMessages[b]!);
    const start = batch.termOffsets[i]!;
    const end = batch.termOffsets[i + 1]!;
    const tokens = Array.from(batch.termTokens.subarray(start, end), (t) => batch.tokens[t]!);
    try {
      const taking = options.onPassage({
        id: batch.ids[i]!,
        tokens,
        impacts: Array.from(batch.impacts.subarray(start, end)),
      });
      if (taking) await taking;
      state.consecutive = 0;
      state.taken++;
    } catch (error) {
      if (!(error instanceof BadRecord)) throw error;
      bad(at, error.message);
    }
  }
  for (; b < batch.badLines.length; b++) bad(batch.badLines[b]!, batch.badMessages[b]!);
  state.line += batch.lines;
}

function textStream(file: InputFile, onBytes: ((n: number) => void) | undefined) {
  const raw = createReadStream(file.path);
  if (onBytes) raw.on('data', (chunk) => onBytes(chunk.length));
  if (!file.gzip) return raw;
  const text = raw.pipe(createGunzip());
  raw.on('error', (error) => text.destroy(error));
  return text;
}

/** Cuts one file into batches of whole lines, parses them in the pool, merges them in order. */
async function readFile(
  file: InputFile,
  pool: ParserPool,
  options: ReadCorpusOptions,
  state: MergeState,
  batchBytes: number,
) {
  const inFlight: Promise<ParsedBatch>[] = [];
  const send = async (text: Uint8Array<ArrayBuffer>) => {
    const parsed = pool.parse(text);
    parsed.catch(() => {}); // awaited in order below; a stop before then must not leave it unhandled
    inFlight.push(parsed);
    // Keep every worker busy, but no more than two batches each in memory.
    if (inFlight.length >= 2 * pool.threads)
      await merge(await inFlight.shift()!, file, state, options);
  };
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of textStream(file, options.onBytes)) {
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    if (pending.length < batchBytes) continue;
    const cut = pending.lastIndexOf(10) + 1;
    if (cut === 0) continue;
    await send(new Uint8Array(pending.subarray(0, cut)));
    pending = pending.subarray(cut);
  }
  if (pending.length > 0) await send(new Uint8Array(pending));
  while (inFlight.length > 0) await merge(await inFlight.shift()!, file, state, options);
}

/**
 * Hands every good passage of `files` to `onPassage` in corpus order, parsing on `threads`
 * worker threads; same results and errors as `readCorpus`. Resolves to the passages taken.
 *
 * @example await readCorpusParallel(files, { quantization: 50, onPassage: (p) => builder.add(p) }, 4);
 */
export async function readCorpusParallel(
  files: InputFile[],
  options: ReadCorpusOptions,
  threads: number,
  batchBytes = BATCH_BYTES,
): Promise<number> {
  const pool = new ParserPool(threads, options.quantization);
  const state: MergeState = { line: 0, consecutive: 0, taken: 0 };
  try {
    for (const file of files) {
      state.line = 0;
      await readFile(file, pool, options, state, batchBytes).catch((error: unknown) => {
        throw gzipError(file, error) ?? error;
      });
    }
  } finally {
    await pool.close();
  }
  return state.taken;
}
