/**
 * Builds a sparse index in bounded memory, as inverted-index builders do: passages arrive in
 * corpus order; the forward index, the passage-to-document map and the passage ids go to their
 * files a run at a time; each run's postings are sorted by term and written to a run file when
 * the memory budget is reached (spill-runs.ts); at the end the runs are merged term by term
 * into the inverted lists, the block-max lists and (when asked for) the impact-ordered lists.
 * The files are those an in-memory build writes, byte for byte. A build that fails or is
 * stopped leaves neither runs nor an index that looks whole.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes, MAX_ARRAY_ELEMENTS } from 'irserve/plugin';
import { BadRecord, type PassageVector } from '../corpus/parse-record.js';
import { STRING_FILES } from './files.js';
import { Growable } from './growable.js';
import { IMPACT_SLICE } from './impact-order.js';
import { sortedByTerm } from './index-builder.js';
import { IndexWriter, type ManifestFields } from './index-writer.js';
import type { SparseManifest } from './manifest.js';
import { mergeRuns } from './merge-runs.js';
import { documentIdOf, type PassageIdRule } from './passage-docs.js';
import {
  FileRun,
  MemoryRun,
  RunBuffer,
  runBytesPerPosting,
  writeRun,
  type RunSource,
  type SortedRun,
} from './spill-runs.js';
import { Interner } from './interner.js';

export interface BoundedBuilderOptions {
  outputDir: string;
  quantization: number;
  blockSize: number;
  passageIds: PassageIdRule;
  /** Add the impact-ordered lists (`search: impact-ordered`). Default false. */
  impactOrdered?: boolean;
  impactSlice?: number;
  /** Bytes the build may hold: when its runs, ids and vocabulary reach it, a run is spilled. */
  memoryBudget: number;
  /** Told of each run written to disk. */
  onSpill?: (spill: { run: number; postings: number; passages: number; seconds: number }) => void;
  /** Told once when the budget is too small for runs above the minimum (a slow build). */
  onWarning?: (message: string) => void;
}

/** What ids and the vocabulary cost in memory, per entry (strings, maps, sets), roughly. */
const BYTES_PER_ID = 120;
/** Kept out of the runs' share of the budget for the merge's windows and everything else. */
const RESERVE = 32 << 20;
/** The smallest run: below it a tiny budget would write a run per passage. */
const MIN_RUN_POSTINGS = 4096;

export class BoundedIndexBuilder {
  readonly #options: BoundedBuilderOptions;
  readonly #out: IndexWriter;
  readonly #spillDir: string;
  readonly #run: RunBuffer;
  readonly #bytesPerPosting: number;
  readonly #terms = new Interner();
  readonly #seenPassages = new Set<string>();
  readonly #documents = new Interner();
  /** The run's passage ids and document numbers, written with it. */
  #runIds: string[] = [];
  #runDocs = new Growable(Uint32Array);
  #postings = 0;
  /** Postings written to the forward files so far (the base of the next run's offsets). */
  #forwardWritten = 0;
  #warnedSmallRuns = false;
  readonly runFiles: string[] = [];

  private constructor(options: BoundedBuilderOptions, out: IndexWriter) {
    this.#options = options;
    this.#out = out;
    this.#spillDir = `${out.temp}.runs`;
    this.#run = new RunBuffer(out.impactType);
    this.#bytesPerPosting = runBytesPerPosting(out.impactType) * 1.5; // growth slack
  }

  /** Checks the output directory and starts the index files. */
  static async create(options: BoundedBuilderOptions): Promise<BoundedIndexBuilder> {
    const out = await IndexWriter.create(
      options.outputDir,
      options.quantization === 0 ? 'f32' : 'u16',
    );
    const builder = new BoundedIndexBuilder(options, out);
    try {
      await mkdir(builder.#spillDir);
      await (await out.array('forwardOffsets')).append(Uint32Array.of(0));
      return builder;
    } catch (error) {
      await builder.abort();
      throw error;
    }
  }

  get passages(): number {
    return this.#seenPassages.size;
  }

  /**
   * Adds one passage; throws BadRecord for a repeated passage id. Returns a promise when the
   * budget was reached and a run is being written (the caller waits for it).
   */
  add(passage: PassageVector): Promise<void> | undefined {
    if (this.#seenPassages.has(passage.id))
      throw new BadRecord(`passage id "${passage.id}" appears twice`);
    if (this.#postings + passage.tokens.length > MAX_ARRAY_ELEMENTS)
      throw new Error(`the corpus has more than ${MAX_ARRAY_ELEMENTS} postings, the index's limit`);
    this.#seenPassages.add(passage.id);
    this.#runIds.push(passage.id);
    this.#runDocs.push(this.#documentNumber(passage.id));
    const { terms, impacts } = sortedByTerm(passage, (token) => this.#termId(token));
    this.#run.add(terms, impacts);
    this.#postings += terms.length;
    return this.#overBudget() ? this.#spill() : undefined;
  }

  /** Writes the last run, merges the runs into the index and publishes it. */
  async finish(build: Record<string, unknown>): Promise<SparseManifest> {
    const sources: RunSource[] = [];
    try {
      const last = await this.#writeForward();
      const window = this.#mergeWindow();
      for (const path of this.runFiles)
        sources.push(await FileRun.open(path, this.#out.impactType, window));
      sources.push(new MemoryRun(last));
      await mergeRuns(sources, this.#out, {
        vocabularySize: this.#terms.values.length,
        blockSize: this.#options.blockSize,
        impactSlice: this.#options.impactOrdered
          ? (this.#options.impactSlice ?? IMPACT_SLICE)
          : undefined,
      });
      await this.#out.writeFile('terms.json', Buffer.from(JSON.stringify(this.#terms.values)));
      const documents = STRING_FILES.find((file) => file.field === 'documentIds')!;
      const ids = this.#out.ids(documents.name, documents.offsets!);
      for (const id of this.#documents.values) await ids.push(id);
    } catch (error) {
      await this.abort();
      throw error;
    } finally {
      for (const source of sources) await source.close().catch(() => undefined);
      await rm(this.#spillDir, { recursive: true, force: true });
    }
    return this.#out.finish(this.#manifestFields(build));
  }

  /** Removes the runs and everything written (harmless twice). */
  async abort(): Promise<void> {
    await rm(this.#spillDir, { recursive: true, force: true });
    await this.#out.abort();
  }

  #manifestFields(build: Record<string, unknown>): ManifestFields {
    const o = this.#options;
    return {
      quantization: o.quantization,
      impactType: this.#out.impactType,
      vocabularySize: this.#terms.values.length,
      passages: this.passages,
      documents: this.#documents.values.length,
      postings: this.#postings,
      blockSize: o.blockSize,
      ...(o.impactOrdered ? { impactSlice: o.impactSlice ?? IMPACT_SLICE } : {}),
      passageIds: o.passageIds,
      build,
    };
  }

  /** Whether the run, with the ids and vocabulary held, has reached the budget. */
  #overBudget(): boolean {
    const run = this.#run.postings;
    if (run < MIN_RUN_POSTINGS) return false;
    return this.#heldBytes() + run * this.#bytesPerPosting + RESERVE >= this.#options.memoryBudget;
  }

  /** What the passage ids, document ids and vocabulary take in memory, roughly. */
  #heldBytes(): number {
    const entries =
      this.#seenPassages.size + this.#documents.values.length + this.#terms.values.length;
    return entries * BYTES_PER_ID;
  }

  /** Once: the ids and vocabulary leave no room for runs, so every run is the smallest. */
  #warnIfRunsAreMinimal(): void {
    const held = this.#heldBytes();
    if (this.#warnedSmallRuns || held + RESERVE < this.#options.memoryBudget) return;
    this.#warnedSmallRuns = true;
    const needed = held + RESERVE + MIN_RUN_POSTINGS * 256 * this.#bytesPerPosting;
    this.#options.onWarning?.(
      `the memory budget (${formatBytes(this.#options.memoryBudget)}) is used up by the ids and vocabulary of the first ${this.passages} passages (about ${formatBytes(held)}, ${BYTES_PER_ID} bytes a passage, document and term) and ${formatBytes(RESERVE)} kept for the merge, so runs are written every ${MIN_RUN_POSTINGS} postings: many small runs make a slow build. Give --memory_budget well above ${formatBytes(needed)} (the ids grow with the corpus)`,
    );
  }

  /** Writes the run's forward part and its sorted postings (a run file). */
  async #spill(): Promise<void> {
    this.#warnIfRunsAreMinimal();
    const started = performance.now();
    const { postings, passages } = this.#run;
    const sorted = await this.#writeForward();
    const path = join(this.#spillDir, `run-${String(this.runFiles.length).padStart(5, '0')}.arr`);
    await writeRun(path, sorted);
    this.runFiles.push(path);
    const seconds = (performance.now() - started) / 1000;
    this.#options.onSpill?.({ run: this.runFiles.length, postings, passages, seconds });
  }

  /**
   * Appends the run's forward index, document numbers and passage ids to their files; returns
   * the run sorted by term (and empties it).
   */
  async #writeForward(): Promise<SortedRun> {
    const { terms, impacts, starts } = this.#run.forward();
    const ends = new Uint32Array(starts.length);
    for (let p = 0; p < starts.length; p++)
      ends[p] = this.#forwardWritten + (p + 1 < starts.length ? starts[p + 1]! : terms.length);
    this.#forwardWritten += terms.length;
    await this.#out.writeArray('forwardTerms', terms);
    await this.#out.writeArray('forwardImpacts', impacts);
    await this.#out.writeArray('forwardOffsets', ends);
    await this.#out.writeArray('passageDocs', this.#runDocs.view());
    const passages = STRING_FILES.find((file) => file.field === 'passageIds')!;
    const ids = this.#out.ids(passages.name, passages.offsets!);
    for (const id of this.#runIds) await ids.push(id);
    this.#runIds = [];
    this.#runDocs = new Growable(Uint32Array);
    return this.#run.sortAndClear(this.#terms.values.length);
  }

  /** Postings each run file is read by at a time in the merge: the budget shared among them. */
  #mergeWindow(): number {
    const share = this.#options.memoryBudget / 4 / Math.max(1, this.runFiles.length);
    return Math.max(
      4096,
      Math.min(4 << 20, Math.floor(share / runBytesPerPosting(this.#out.impactType))),
    );
  }

  #termId(token: string): number {
    return this.#terms.numberOf(token);
  }

  #documentNumber(passageId: string): number {
    return this.#documents.numberOf(documentIdOf(passageId, this.#options.passageIds));
  }
}
