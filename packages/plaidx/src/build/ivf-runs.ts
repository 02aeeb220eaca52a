/**
 * The passage IVF (centroid -> ascending passages) built in bounded memory, by external sort:
 * the (centroid, passage) pairs of the corpus, one per distinct centroid of each passage, are
 * gathered in a run of fixed size; a full run is sorted by centroid (a counting sort, stable,
 * so each centroid's passages stay ascending) and written to a checksummed array file. Runs
 * cover consecutive passages, so the IVF is, for each centroid, its list from run 0, then
 * run 1, and so on: the merge reads each run once, front to back. With one run and no spill,
 * nothing touches the disk, and the bytes written are the same either way.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { npyPreamble } from '@irserve/dense';
import { ArrayFile, ArrayFileWriter } from 'irserve/plugin';

/** Bytes of memory per pair a run holds (centroid and passage, and the sorted passage). */
export const BYTES_PER_RUN_PAIR = 12;
const RUN_KIND = 'plaid-ivf-run';

/** A sorted run: its passages grouped by centroid, and how many each centroid has. */
interface Run {
  counts: Int32Array;
  /** In memory (the last run when nothing was spilled) or in a file. */
  pids?: Int32Array;
  path?: string;
}

export interface IvfRunOptions {
  partitions: number;
  /** Pairs a run holds before it is spilled. */
  runPairs: number;
  /** Where spilled runs go. */
  spillDir: string;
  /** Bytes read from each run at a time while merging. */
  readBytes: number;
  onSpill?: (run: number, pairs: number) => void;
}

/**
 * @example
 * const runs = new IvfRuns({ partitions, runPairs: 1 << 24, spillDir, readBytes: 1 << 20 });
 * for (...) await runs.addPassage(pid, codesOfPassage);
 * await runs.writeIvf('idx/ivf.npy', 'idx/ivf_lengths.npy');
 */
export class IvfRuns {
  /** Passages per centroid over the whole corpus (ivf_lengths.npy). */
  readonly lengths: Int32Array;
  readonly #options: IvfRunOptions;
  readonly #lastPid: Int32Array;
  readonly #centroids: Int32Array;
  readonly #pids: Int32Array;
  #size = 0;
  readonly #runs: Run[] = [];

  constructor(options: IvfRunOptions) {
    this.#options = options;
    this.lengths = new Int32Array(options.partitions);
    this.#lastPid = new Int32Array(options.partitions).fill(-1);
    this.#centroids = new Int32Array(options.runPairs);
    this.#pids = new Int32Array(options.runPairs);
  }

  /** Runs written to disk so far. */
  get spills(): number {
    return this.#runs.filter((r) => r.path !== undefined).length;
  }

  /** Adds passage `pid`'s centroids (its tokens' codes; repeats count once). */
  async addPassage(pid: number, codes: Int32Array): Promise<void> {
    for (const c of codes) {
      if (this.#lastPid[c] === pid) continue;
      this.#lastPid[c] = pid;
      this.lengths[c]!++;
      if (this.#size === this.#pids.length) await this.#spill();
      this.#centroids[this.#size] = c;
      this.#pids[this.#size++] = pid;
    }
  }

  /** Writes `ivf.npy` (int64 passages) and `ivf_lengths.npy` (int32 counts), then drops the runs. */
  async writeIvf(ivfPath: string, lengthsPath: string): Promise<void> {
    if (this.#runs.length > 0) await this.#spill();
    else this.#runs.push(this.#sortRun());
    const total = this.lengths.reduce((a, b) => a + b, 0);
    const out = await BufferedOut.create(ivfPath, this.#options.readBytes);
    const readers = await Promise.all(this.#runs.map((run) => RunReader.open(run, this.#options)));
    try {
      await out.write(npyPreamble('<i8', [total]));
      for (let c = 0; c < this.#options.partitions; c++)
        for (const reader of readers) await out.writeInt64(await reader.next(reader.counts[c]!));
      await out.close();
    } finally {
      await out.close();
      for (const reader of readers) await reader.close();
    }
    const lengthsOut = await BufferedOut.create(lengthsPath, 1 << 16);
    await lengthsOut.write(npyPreamble('<i4', [this.lengths.length]));
    await lengthsOut.write(new Uint8Array(this.lengths.buffer));
    await lengthsOut.close();
  }

  /** The gathered pairs sorted by centroid (counting sort: stable, passages stay ascending). */
  #sortRun(): Run {
    const counts = new Int32Array(this.#options.partitions);
    for (let i = 0; i < this.#size; i++) counts[this.#centroids[i]!]!++;
    const next = new Int32Array(this.#options.partitions);
    for (let c = 1; c < next.length; c++) next[c] = next[c - 1]! + counts[c - 1]!;
    const pids = new Int32Array(this.#size);
    for (let i = 0; i < this.#size; i++) pids[next[this.#centroids[i]!]!++] = this.#pids[i]!;
    this.#size = 0;
    return { counts, pids };
  }

  async #spill(): Promise<void> {
    const pairs = this.#size;
    const { counts, pids } = this.#sortRun();
    const path = join(this.#options.spillDir, `ivf-run-${this.#runs.length}.arr`);
    const writer = await ArrayFileWriter.create(path, { kind: RUN_KIND });
    try {
      await writer.writeSection('counts', counts);
      await writer.writeSection('pids', pids!);
      await writer.finish({ pairs });
    } catch (error) {
      await writer.abort();
      throw error;
    }
    this.#runs.push({ counts, path });
    this.#options.onSpill?.(this.#runs.length, pairs);
  }
}

/** Reads one run's passages front to back, a block at a time (checked against its CRCs). */
class RunReader {
  readonly counts: Int32Array;
  readonly #file: ArrayFile | undefined;
  readonly #memory: Int32Array | undefined;
  readonly #block: number;
  #buffer: Int32Array = new Int32Array(0);
  #bufferAt = 0;
  #position = 0;

  private constructor(run: Run, file: ArrayFile | undefined, block: number) {
    this.counts = run.counts;
    this.#memory = run.pids;
    this.#file = file;
    this.#block = block;
  }

  static async open(run: Run, options: IvfRunOptions): Promise<RunReader> {
    const file =
      run.path === undefined ? undefined : await ArrayFile.open(run.path, { kind: RUN_KIND });
    return new RunReader(run, file, Math.max(1024, Math.floor(options.readBytes / 4)));
  }

  /** The next `n` passages (a view, valid until the next call). */
  async next(n: number): Promise<Int32Array> {
    if (this.#memory) return this.#memory.subarray(this.#position, (this.#position += n));
    const file = this.#file!;
    if (this.#bufferAt + n > this.#buffer.length) {
      const start = this.#position;
      const end = Math.min(file.section('pids', 'i32').length, start + Math.max(n, this.#block));
      this.#buffer = await file.readRange('pids', 'i32', start, end);
      this.#bufferAt = 0;
    }
    const view = this.#buffer.subarray(this.#bufferAt, this.#bufferAt + n);
    this.#bufferAt += n;
    this.#position += n;
    return view;
  }

  async close(): Promise<void> {
    await this.#file?.close();
  }
}

/** A file written through a buffer of fixed size. */
export class BufferedOut {
  readonly #handle: FileHandle;
  readonly #buffer: Uint8Array;
  #used = 0;
  #position = 0;
  #closed = false;

  private constructor(handle: FileHandle, bytes: number) {
    this.#handle = handle;
    this.#buffer = new Uint8Array(Math.max(1 << 12, bytes - (bytes % 8)));
  }

  static async create(path: string, bytes: number): Promise<BufferedOut> {
    return new BufferedOut(await open(path, 'w'), bytes);
  }

  async write(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) {
      const n = Math.min(bytes.length - at, this.#buffer.length - this.#used);
      this.#buffer.set(bytes.subarray(at, at + n), this.#used);
      this.#used += n;
      at += n;
      if (this.#used === this.#buffer.length) await this.#flush();
    }
  }

  /** Writes `values` as little-endian int64 (what numpy's `<i8` holds). */
  async writeInt64(values: Int32Array): Promise<void> {
    const view = new DataView(this.#buffer.buffer);
    for (const v of values) {
      if (this.#used + 8 > this.#buffer.length) await this.#flush();
      view.setInt32(this.#used, v, true);
      view.setInt32(this.#used + 4, v < 0 ? -1 : 0, true);
      this.#used += 8;
    }
  }

  /** Flushes and closes (harmless a second time). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#flush();
    } finally {
      await this.#handle.close();
    }
  }

  async #flush(): Promise<void> {
    for (let done = 0; done < this.#used;) {
      const { bytesWritten } = await this.#handle.write(
        this.#buffer,
        done,
        this.#used - done,
        this.#position + done,
      );
      done += bytesWritten;
    }
    this.#position += this.#used;
    this.#used = 0;
  }
}
