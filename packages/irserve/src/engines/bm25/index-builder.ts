/**
 * Builds an inverted index from analysed documents. Memory: while adding, 6 bytes per
 * (document, distinct term) pair plus the vocabulary; `finish()` sorts terms by their UTF-8
 * bytes and lays postings out per term with one counting pass (documents stay in order).
 */
import { assertArrayFits, MAX_ARRAY_ELEMENTS } from '../../storage/index.js';
import { GrowableInt32, GrowableUint16, GrowableUint32, GrowableUint8 } from './growable.js';
import type { IndexData } from './index-data.js';
import { lengthToNorm } from './lucene-norms.js';

const MAX_TF = 0xffff;

export class IndexBuilder {
  readonly #termIds = new Map<string, number>();
  readonly #terms: string[] = [];
  /** Per term: the last document it was seen in, and its posting slot there. */
  readonly #lastDoc = new GrowableInt32();
  readonly #slot = new GrowableUint32();
  /** Postings in document order: term id and tf; doc d's run starts at `#docStart[d]`. */
  readonly #postTerm = new GrowableInt32();
  readonly #postTf = new GrowableUint16();
  readonly #docStart = new GrowableUint32();
  readonly #norms = new GrowableUint8();
  readonly #ids: string[] = [];
  #docCount = 0;
  #sumTotalTermFreq = 0;

  get numDocs(): number {
    return this.#ids.length;
  }

  /**
   * Adds one document with its terms (in any order, repeats counted). Throws a clear error
   * before the index passes what its arrays can hold (2^32 - 1 postings; 2^31 documents).
   */
  addDocument(id: string, terms: readonly string[]): void {
    const doc = this.#ids.length;
    if (doc >= 0x7fffffff) throw new RangeError('more than 2^31 - 1 documents: index too large');
    if (this.#postTerm.length + terms.length > MAX_ARRAY_ELEMENTS)
      throw new RangeError(
        `more than ${MAX_ARRAY_ELEMENTS} postings: index too large for one BM25 index; split the collection and serve the parts with federation`,
      );
    this.#ids.push(id);
    this.#docStart.push(this.#postTerm.length);
    this.#norms.push(lengthToNorm(terms.length));
    if (terms.length > 0) this.#docCount++;
    this.#sumTotalTermFreq += terms.length;
    for (const term of terms) this.#addOccurrence(doc, this.#termId(term));
  }

  #termId(term: string): number {
    let id = this.#termIds.get(term);
    if (id === undefined) {
      id = this.#terms.length;
      this.#termIds.set(term, id);
      this.#terms.push(term);
      this.#lastDoc.push(-1);
      this.#slot.push(0);
    }
    return id;
  }

  #addOccurrence(doc: number, term: number): void {
    const lastDoc = this.#lastDoc.data;
    if (lastDoc[term] === doc) {
      const slot = this.#slot.data[term]!;
      const tfs = this.#postTf.data;
      if (tfs[slot]! < MAX_TF) tfs[slot]!++;
      return;
    }
    lastDoc[term] = doc;
    this.#slot.data[term] = this.#postTerm.length;
    this.#postTerm.push(term);
    this.#postTf.push(1);
  }

  /** The finished index; the builder must not be used afterwards. */
  finish(): IndexData {
    const numTerms = this.#terms.length;
    const numPostings = this.#postTerm.length;
    assertArrayFits(numPostings, 'postings of the BM25 index');
    const { termBytes, termOffsets, rank } = sortedVocabulary(this.#terms);
    const { postingStart, postingDocs, postingTfs } = this.#layOut(rank, numTerms, numPostings);
    const { idBytes, idOffsets } = encodeStrings(this.#ids);
    return {
      termBytes,
      termOffsets,
      postingStart,
      postingDocs,
      postingTfs,
      norms: this.#norms.toArray(),
      idBytes,
      idOffsets,
      stats: {
        numDocs: this.#ids.length,
        docCount: this.#docCount,
        sumTotalTermFreq: this.#sumTotalTermFreq,
        numTerms,
        numPostings,
      },
    };
  }

  #layOut(rank: Int32Array, numTerms: number, numPostings: number) {
    const postTerm = this.#postTerm.data;
    const postTf = this.#postTf.data;
    const postingStart = new Uint32Array(numTerms + 1);
    for (let p = 0; p < numPostings; p++) postingStart[rank[postTerm[p]!]! + 1]!++;
    for (let t = 0; t < numTerms; t++) postingStart[t + 1]! += postingStart[t]!;
    const cursor = postingStart.slice(0, numTerms);
    const postingDocs = new Int32Array(numPostings);
    const postingTfs = new Uint16Array(numPostings);
    const docStart = this.#docStart.data;
    const numDocs = this.#ids.length;
    for (let d = 0; d < numDocs; d++) {
      const end = d + 1 < numDocs ? docStart[d + 1]! : numPostings;
      for (let p = docStart[d]!; p < end; p++) {
        const at = cursor[rank[postTerm[p]!]!]!++;
        postingDocs[at] = d;
        postingTfs[at] = postTf[p]!;
      }
    }
    return { postingStart, postingDocs, postingTfs };
  }
}

/** Strings as one UTF-8 blob with offsets. */
export function encodeStrings(strings: readonly string[]): {
  idBytes: Uint8Array;
  idOffsets: Uint32Array;
} {
  const encoder = new TextEncoder();
  const offsets = new Uint32Array(strings.length + 1);
  let total = 0;
  for (let i = 0; i < strings.length; i++) {
    total += Buffer.byteLength(strings[i]!, 'utf8');
    if (total > 0xffffffff)
      throw new RangeError('more than 4 GiB of ids or terms: index too large');
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < strings.length; i++)
    encoder.encodeInto(strings[i]!, bytes.subarray(offsets[i]));
  return { idBytes: bytes, idOffsets: offsets };
}

/** Terms sorted by UTF-8 bytes; `rank[id]` is the sorted position of first-seen term `id`. */
function sortedVocabulary(terms: readonly string[]) {
  const { idBytes: blob, idOffsets: offsets } = encodeStrings(terms);
  const buffer = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const order = Array.from({ length: terms.length }, (_, i) => i);
  order.sort((a, b) =>
    buffer.compare(buffer, offsets[b], offsets[b + 1], offsets[a], offsets[a + 1]),
  );
  const rank = new Int32Array(terms.length);
  order.forEach((id, position) => (rank[id] = position));
  const sorted = encodeStrings(order.map((id) => terms[id]!));
  return { termBytes: sorted.idBytes, termOffsets: sorted.idOffsets, rank };
}
