/**
 * Array lengths against the manifest's counts: what catches an index whose files each match
 * their checksums but do not belong together.
 */
import type { SparseManifest } from './manifest.js';
import { hasImpactOrder, type SparseIndexData, type SparseIndexHead } from './types.js';

type Expect = (what: string, actual: number, wanted: number) => void;

function expecter(dir: string): Expect {
  return (what, actual, wanted) => {
    if (actual !== wanted)
      throw new Error(`${dir}: ${what} has ${actual} entries, expected ${wanted}`);
  };
}

/**
 * The head against the manifest, and the lengths of the inverted lists read from the files.
 *
 * @example checkHeadShape(head, manifest, 'indexes/splade');
 */
export function checkHeadShape(
  head: SparseIndexHead,
  m: SparseManifest,
  dir: string,
  lists: { passages: number; impacts: number },
): void {
  const expect = expecter(dir);
  expect('inverted.offsets', head.invertedOffsets.length, m.vocabularySize + 1);
  expect('last inverted offset', head.invertedOffsets[m.vocabularySize]!, m.postings);
  expect('passage-docs', head.passageDocs.length, m.passages);
  expect('document-ids', head.documentIds.length, m.documents);
  checkValues(head, m, dir);
  expect('inverted.passages', lists.passages, m.postings);
  expect('inverted.impacts', lists.impacts, m.postings);
}

/**
 * What the search reads from the head without looking: the list bounds ascend (a list read from
 * the files has a length of at least 0) and every passage's document exists (an id is never
 * `undefined`). The checksums vouch for the bytes; this, for the builder that wrote them.
 */
function checkValues(head: SparseIndexHead, m: SparseManifest, dir: string): void {
  const offsets = head.invertedOffsets;
  for (let t = 0; t < m.vocabularySize; t++)
    if (offsets[t]! > offsets[t + 1]!)
      throw new Error(`${dir}: inverted.offsets descend at term ${t} (a damaged index)`);
  const docs = head.passageDocs;
  for (let p = 0; p < docs.length; p++)
    if (docs[p]! >= m.documents)
      throw new Error(
        `${dir}: passage-docs gives passage ${p} the document ${docs[p]}, past the ${m.documents} documents (a damaged index)`,
      );
}

/**
 * The whole index against the manifest.
 *
 * @example checkShape(index, manifest, 'indexes/splade');
 */
export function checkShape(index: SparseIndexData, m: SparseManifest, dir: string): void {
  const expect = expecter(dir);
  expect('inverted.offsets', index.invertedOffsets.length, m.vocabularySize + 1);
  expect('inverted.passages', index.invertedPassages.length, m.postings);
  expect('inverted.impacts', index.invertedImpacts.length, m.postings);
  if (hasImpactOrder(index)) {
    expect('impact-ordered.passages', index.impactPassages.length, m.postings);
    expect('impact-ordered.impacts', index.impactImpacts.length, m.postings);
  }
  expect('forward.offsets', index.forwardOffsets.length, m.passages + 1);
  expect('forward.terms', index.forwardTerms.length, m.postings);
  expect('forward.impacts', index.forwardImpacts.length, m.postings);
  expect('blocks.offsets', index.blockOffsets.length, m.vocabularySize + 1);
  expect('blocks.max', index.blockMax.length, index.blockIds.length);
  expect('passage-docs', index.passageDocs.length, m.passages);
  expect('last inverted offset', index.invertedOffsets[m.vocabularySize]!, m.postings);
  expect('last forward offset', index.forwardOffsets[m.passages]!, m.postings);
  expect('last block offset', index.blockOffsets[m.vocabularySize]!, index.blockIds.length);
}
