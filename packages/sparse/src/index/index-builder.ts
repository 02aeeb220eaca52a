/**
 * Builds a sparse index in memory from passages in corpus order: the forward index as passages
 * arrive, then the inverted index (a counting sort of the forward one, so each term's passages
 * come out ascending), the block-max lists and, when asked for, its impact-ordered copy.
 */
import { BadRecord, type PassageVector } from '../corpus/parse-record.js';
import { Growable } from './growable.js';
import { IMPACT_SLICE, impactOrder } from './impact-order.js';
import { documentIdOf, type PassageIdRule } from './passage-docs.js';
import { clusterOrder, permuteForward, type ForwardIndex, type ReorderOptions } from './reorder.js';
import type { Impacts, SparseIndexData } from './types.js';
import { Interner } from './interner.js';

export interface IndexBuilderOptions {
  quantization: number;
  blockSize: number;
  passageIds: PassageIdRule;
  /**
   * Whether to add the impact-ordered lists (`search: impact-ordered`; about 40% more index).
   * Default false.
   */
  impactOrdered?: boolean;
  /** Passages per slice of the impact-ordered lists (default IMPACT_SLICE). */
  impactSlice?: number;
  /** Cluster passages so similar ones share blocks (tight block-max bounds); false: corpus order. */
  reorder?: ReorderOptions | false;
}

/** Position bits in the sort keys of one passage's terms (more than MAX_TERMS_PER_PASSAGE). */
const POSITION_SCALE = 2 ** 17;
const MAX_POSTINGS = 2 ** 32 - 1;

export class SparseIndexBuilder {
  readonly #options: IndexBuilderOptions;
  readonly #terms = new Interner();
  readonly #passageIds: string[] = [];
  readonly #seenPassages = new Set<string>();
  readonly #documents = new Interner();
  readonly #passageDocs = new Growable(Uint32Array);
  readonly #forwardOffsets = new Growable(Uint32Array);
  readonly #forwardTerms = new Growable(Uint32Array);
  readonly #forwardImpacts: Growable<Uint16Array> | Growable<Float32Array>;

  constructor(options: IndexBuilderOptions) {
    this.#options = options;
    this.#forwardImpacts =
      options.quantization === 0 ? new Growable(Float32Array) : new Growable(Uint16Array);
    this.#forwardOffsets.push(0);
  }

  /** Seconds `finish` spent clustering passages (0 without reordering). */
  reorderSeconds = 0;

  get passages(): number {
    return this.#passageIds.length;
  }

  /**
   * Adds one passage; throws BadRecord for a repeated passage id.
   *
   * @example builder.add({ id: 'd1::0', tokens: ['cat'], impacts: [60] });
   */
  add(passage: PassageVector): void {
    if (this.#seenPassages.has(passage.id))
      throw new BadRecord(`passage id "${passage.id}" appears twice`);
    if (this.#forwardTerms.length + passage.tokens.length > MAX_POSTINGS)
      throw new Error(`the corpus has more than ${MAX_POSTINGS} postings, the index's limit`);
    this.#seenPassages.add(passage.id);
    this.#passageIds.push(passage.id);
    this.#passageDocs.push(this.#documentNumber(passage.id));
    const { terms, impacts } = sortedByTerm(passage, (token) => this.#termId(token));
    for (let i = 0; i < terms.length; i++) {
      this.#forwardTerms.push(terms[i]!);
      this.#forwardImpacts.push(impacts[i]!);
    }
    this.#forwardOffsets.push(this.#forwardTerms.length);
  }

  /** The finished index (the builder should not be used afterwards). */
  finish(): SparseIndexData {
    let forward: ForwardIndex = {
      offsets: this.#forwardOffsets.toArray(),
      terms: this.#forwardTerms.toArray(),
      impacts: this.#forwardImpacts.toArray(),
    };
    let passageIds = this.#passageIds;
    let passageDocs = this.#passageDocs.toArray();
    const reorder = this.#options.reorder ?? false;
    if (reorder !== false && passageIds.length > 1) {
      const started = performance.now();
      const order = clusterOrder(forward, this.#terms.values.length, reorder);
      this.reorderSeconds = (performance.now() - started) / 1000;
      forward = permuteForward(forward, order);
      passageIds = Array.from(order, (p) => this.#passageIds[p]!);
      passageDocs = passageDocs.map((_, i) => passageDocs[order[i]!]!);
    }
    const { offsets: forwardOffsets, terms: forwardTerms, impacts: forwardImpacts } = forward;
    const inverted = invert(
      forwardOffsets,
      forwardTerms,
      forwardImpacts,
      this.#terms.values.length,
    );
    const blocks = blockMaxima(inverted, this.#options.blockSize);
    return {
      quantization: this.#options.quantization,
      terms: this.#terms.values,
      invertedOffsets: inverted.offsets,
      invertedPassages: inverted.passages,
      invertedImpacts: inverted.impacts,
      ...this.#impactOrdered(inverted),
      forwardOffsets,
      forwardTerms,
      forwardImpacts,
      blockOffsets: blocks.offsets,
      blockIds: blocks.ids,
      blockMax: blocks.max,
      blockSize: this.#options.blockSize,
      passageIds,
      documentIds: this.#documents.values,
      passageDocs,
    };
  }

  /** The impact-ordered lists when asked for (`--impact_ordered`), else no fields at all. */
  #impactOrdered(inverted: Parameters<typeof impactOrder>[0]): Partial<SparseIndexData> {
    if (this.#options.impactOrdered !== true) return {};
    const impactSlice = this.#options.impactSlice ?? IMPACT_SLICE;
    const byImpact = impactOrder(inverted, impactSlice);
    return { impactPassages: byImpact.passages, impactImpacts: byImpact.impacts, impactSlice };
  }

  #termId(token: string): number {
    return this.#terms.numberOf(token);
  }

  #documentNumber(passageId: string): number {
    return this.#documents.numberOf(documentIdOf(passageId, this.#options.passageIds));
  }
}

/**
 * A passage's terms as term ids, ascending, with their impacts (a token repeated keeps its
 * order of appearance).
 *
 * @example sortedByTerm({ id: 'p', tokens: ['b', 'a'], impacts: [2, 1] }, (t) => t.charCodeAt(0))
 */
export function sortedByTerm(
  passage: PassageVector,
  termId: (token: string) => number,
): { terms: Uint32Array; impacts: Float64Array } {
  const n = passage.tokens.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = termId(passage.tokens[i]!) * POSITION_SCALE + i;
  keys.sort();
  const terms = new Uint32Array(n);
  const impacts = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const position = keys[i]! % POSITION_SCALE;
    terms[i] = (keys[i]! - position) / POSITION_SCALE;
    impacts[i] = passage.impacts[position]!;
  }
  return { terms, impacts };
}

interface Inverted {
  offsets: Uint32Array;
  passages: Uint32Array;
  impacts: Impacts;
}

/** Counting sort of the forward index by term: each term's passages come out ascending. */
function invert(
  forwardOffsets: Uint32Array,
  forwardTerms: Uint32Array,
  forwardImpacts: Impacts,
  vocabularySize: number,
): Inverted {
  const offsets = new Uint32Array(vocabularySize + 1);
  for (const term of forwardTerms) offsets[term + 1]!++;
  for (let t = 0; t < vocabularySize; t++) offsets[t + 1]! += offsets[t]!;
  const next = offsets.slice(0, vocabularySize);
  const passages = new Uint32Array(forwardTerms.length);
  const impacts =
    forwardImpacts instanceof Float32Array
      ? new Float32Array(forwardTerms.length)
      : new Uint16Array(forwardTerms.length);
  for (let p = 0; p + 1 < forwardOffsets.length; p++) {
    for (let j = forwardOffsets[p]!; j < forwardOffsets[p + 1]!; j++) {
      const slot = next[forwardTerms[j]!]!++;
      passages[slot] = p;
      impacts[slot] = forwardImpacts[j]!;
    }
  }
  return { offsets, passages, impacts };
}

/** For each term, the blocks it occurs in and its largest impact in each. */
function blockMaxima(inverted: Inverted, blockSize: number) {
  const vocabularySize = inverted.offsets.length - 1;
  const offsets = new Uint32Array(vocabularySize + 1);
  const ids = new Growable(Uint32Array);
  const max =
    inverted.impacts instanceof Float32Array
      ? new Growable(Float32Array)
      : new Growable(Uint16Array);
  for (let t = 0; t < vocabularySize; t++) {
    const start = inverted.offsets[t]!;
    appendBlockMaxima(inverted, start, inverted.offsets[t + 1]!, blockSize, { ids, max });
    offsets[t + 1] = ids.length;
  }
  return { offsets, ids: ids.toArray(), max: max.toArray() };
}

/**
 * Appends, for one term's postings `[start, end)` of `list`, each block they fall in and their
 * largest impact there.
 */
export function appendBlockMaxima(
  list: { passages: Uint32Array; impacts: Impacts },
  start: number,
  end: number,
  blockSize: number,
  out: { ids: Growable<Uint32Array>; max: Growable<Uint16Array> | Growable<Float32Array> },
): void {
  let block = -1;
  let best = 0;
  for (let j = start; j < end; j++) {
    const b = Math.floor(list.passages[j]! / blockSize);
    if (b !== block) {
      if (block >= 0) {
        out.ids.push(block);
        out.max.push(best);
      }
      block = b;
      best = 0;
    }
    best = Math.max(best, list.impacts[j]!);
  }
  if (block >= 0) {
    out.ids.push(block);
    out.max.push(best);
  }
}
