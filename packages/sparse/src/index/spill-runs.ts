/**
 * Runs of the bounded-memory builder, as inverted-index builders make them: the postings of a
 * stretch of consecutive passages gathered in memory, sorted by term (a counting sort, so each
 * term's passages stay ascending) and written to a run file when the memory budget is reached;
 * at the end every run is read back term by term, in term order, and a term's postings from run
 * after run are its whole list, still ascending. Run files are irserve array files: a damaged
 * run is found (page checksums) when it is merged, never indexed.
 */
import { ArrayFile, ArrayFileError, ArrayFileWriter } from 'irserve/plugin';
import { Growable } from './growable.js';
import type { ImpactType } from './manifest.js';
import type { Impacts } from './types.js';

/** A run sorted by term: the terms it has (ascending), their counts, then all postings. */
export interface SortedRun {
  terms: Uint32Array;
  counts: Uint32Array;
  passages: Uint32Array;
  impacts: Impacts;
}

/** Bytes a run holds per posting while gathering (term, impact) and when sorted (passage, impact). */
export function runBytesPerPosting(impactType: ImpactType): number {
  const impact = impactType === 'u16' ? 2 : 4;
  return 2 * (4 + impact);
}

/** The postings of consecutive passages, as they arrive (each passage's terms ascending). */
export class RunBuffer {
  readonly #impactType: ImpactType;
  #terms = new Growable(Uint32Array);
  #impacts: Growable<Uint16Array> | Growable<Float32Array>;
  /** Where each passage's postings start in the run. */
  #starts = new Growable(Uint32Array);
  /** The number of the run's first passage in the whole corpus. */
  firstPassage = 0;

  constructor(impactType: ImpactType) {
    this.#impactType = impactType;
    this.#impacts = this.#newImpacts();
  }

  get postings(): number {
    return this.#terms.length;
  }

  get passages(): number {
    return this.#starts.length;
  }

  /** Adds the next passage's terms (ascending) and impacts. */
  add(terms: ArrayLike<number>, impacts: ArrayLike<number>): void {
    this.#starts.push(this.#terms.length);
    for (let i = 0; i < terms.length; i++) {
      this.#terms.push(terms[i]!);
      this.#impacts.push(impacts[i]!);
    }
  }

  /** The run's postings in passage order (the forward index), views valid until the next add. */
  forward(): { terms: Uint32Array; impacts: Impacts; starts: Uint32Array } {
    return {
      terms: this.#terms.view(),
      impacts: this.#impacts.view(),
      starts: this.#starts.view(),
    };
  }

  /** The run sorted by term (over a vocabulary of `vocabularySize`), then the buffer emptied. */
  sortAndClear(vocabularySize: number): SortedRun {
    const terms = this.#terms.view();
    const impacts = this.#impacts.view();
    const n = terms.length;
    const next = new Uint32Array(vocabularySize + 1);
    for (let j = 0; j < n; j++) next[terms[j]! + 1]!++;
    let present = 0;
    for (let t = 0; t < vocabularySize; t++) if (next[t + 1]! > 0) present++;
    const out: SortedRun = {
      terms: new Uint32Array(present),
      counts: new Uint32Array(present),
      passages: new Uint32Array(n),
      impacts: this.#impactType === 'u16' ? new Uint16Array(n) : new Float32Array(n),
    };
    for (let t = 0, i = 0; t < vocabularySize; t++) {
      const count = next[t + 1]!;
      if (count > 0) {
        out.terms[i] = t;
        out.counts[i++] = count;
      }
      next[t + 1] = next[t]! + count;
    }
    const starts = this.#starts.view();
    for (let p = 0; p < starts.length; p++) {
      const end = p + 1 < starts.length ? starts[p + 1]! : n;
      for (let j = starts[p]!; j < end; j++) {
        const slot = next[terms[j]!]!++;
        out.passages[slot] = this.firstPassage + p;
        out.impacts[slot] = impacts[j]!;
      }
    }
    this.firstPassage += starts.length;
    this.#terms = new Growable(Uint32Array);
    this.#impacts = this.#newImpacts();
    this.#starts = new Growable(Uint32Array);
    return out;
  }

  #newImpacts() {
    return this.#impactType === 'u16' ? new Growable(Uint16Array) : new Growable(Float32Array);
  }
}

const RUN_KIND = 'sparse-index-run';

/** Writes a sorted run to `path` (an array file). */
export async function writeRun(path: string, run: SortedRun): Promise<void> {
  const writer = await ArrayFileWriter.create(path, { kind: RUN_KIND });
  try {
    await writer.writeSection('terms', run.terms);
    await writer.writeSection('counts', run.counts);
    await writer.writeSection('passages', run.passages);
    await writer.writeSection('impacts', run.impacts);
    await writer.finish(null);
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** One run read term by term in term order (from memory or from its file). */
export interface RunSource {
  /** The current term, or Infinity when the run has no more. */
  readonly term: number;
  /** The current term's postings in this run. */
  readonly count: number;
  /** Copies the current term's postings into `passages`/`impacts` from `at`; moves on. */
  take(passages: Uint32Array, impacts: Impacts, at: number): Promise<number>;
  close(): Promise<void>;
}

/** A sorted run still in memory (a build that never reached its budget). */
export class MemoryRun implements RunSource {
  readonly #run: SortedRun;
  #i = 0;
  #at = 0;

  constructor(run: SortedRun) {
    this.#run = run;
  }

  get term(): number {
    return this.#i < this.#run.terms.length ? this.#run.terms[this.#i]! : Infinity;
  }

  get count(): number {
    return this.#run.counts[this.#i] ?? 0;
  }

  take(passages: Uint32Array, impacts: Impacts, at: number): Promise<number> {
    const count = this.#run.counts[this.#i++]!;
    passages.set(this.#run.passages.subarray(this.#at, this.#at + count), at);
    impacts.set(this.#run.impacts.subarray(this.#at, this.#at + count), at);
    this.#at += count;
    return Promise.resolve(count);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A run read back from its file through windows of `window` postings (so a merge of many runs
 * holds a window of each, not the runs); every page checked as it is read.
 */
export class FileRun implements RunSource {
  readonly #file: ArrayFile;
  readonly #terms: Uint32Array;
  readonly #counts: Uint32Array;
  readonly #window: number;
  readonly #impactType: ImpactType;
  #i = 0;
  /** The next posting to take, in the run, and the window holding [windowStart, windowEnd). */
  #at = 0;
  #windowStart = 0;
  #passages: Uint32Array = new Uint32Array(0);
  #impacts: Impacts = new Uint16Array(0);

  private constructor(
    file: ArrayFile,
    terms: Uint32Array,
    counts: Uint32Array,
    window: number,
    impactType: ImpactType,
  ) {
    this.#file = file;
    this.#terms = terms;
    this.#counts = counts;
    this.#window = window;
    this.#impactType = impactType;
  }

  /** Opens the run file at `path`; a damaged one rejects with an error naming it. */
  static async open(path: string, impactType: ImpactType, window: number): Promise<FileRun> {
    const file = await ArrayFile.open(path, { kind: RUN_KIND }).catch(damagedRun(path));
    try {
      const terms = await file.read('terms', 'u32');
      const counts = await file.read('counts', 'u32');
      return new FileRun(file, terms, counts, window, impactType);
    } catch (error) {
      await file.close();
      return damagedRun(path)(error);
    }
  }

  get term(): number {
    return this.#i < this.#terms.length ? this.#terms[this.#i]! : Infinity;
  }

  get count(): number {
    return this.#counts[this.#i] ?? 0;
  }

  async take(passages: Uint32Array, impacts: Impacts, at: number): Promise<number> {
    const count = this.#counts[this.#i++]!;
    for (let done = 0; done < count;) {
      const inWindow = this.#at - this.#windowStart;
      if (inWindow >= this.#passages.length) {
        await this.#fill();
        continue;
      }
      const n = Math.min(count - done, this.#passages.length - inWindow);
      passages.set(this.#passages.subarray(inWindow, inWindow + n), at + done);
      impacts.set(this.#impacts.subarray(inWindow, inWindow + n), at + done);
      this.#at += n;
      done += n;
    }
    return count;
  }

  close(): Promise<void> {
    return this.#file.close();
  }

  async #fill(): Promise<void> {
    const total = this.#file.section('passages', 'u32').length;
    const end = Math.min(total, this.#at + this.#window);
    try {
      this.#passages = await this.#file.readRange('passages', 'u32', this.#at, end);
      this.#impacts = await this.#file.readRange('impacts', this.#impactType, this.#at, end);
    } catch (error) {
      damagedRun(this.#file.path)(error);
    }
    this.#windowStart = this.#at;
  }
}

/** Rethrows a run file's fault as the error of a damaged run (naming it). */
function damagedRun(path: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof ArrayFileError)
      throw new Error(
        `run file ${path} is damaged (${error.message}): the build stops; build again`,
      );
    throw error as Error;
  };
}
