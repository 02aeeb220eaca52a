import { IndexBuilder } from '../../src/engines/bm25/index-builder.js';
import type { IndexData } from '../../src/engines/bm25/index-data.js';
import { random } from '../helpers/random.js';

/** Documents over a Zipf-like vocabulary, so some terms are frequent (long lists) and some rare. */
export function randomIndexData(seed: number, numDocs: number, vocabulary: number): IndexData {
  const rand = random(seed);
  const builder = new IndexBuilder();
  for (let d = 0; d < numDocs; d++) {
    const length = Math.floor(rand() * 60);
    const terms = Array.from({ length }, () => `t${Math.floor(vocabulary ** rand()) - 1}`);
    builder.addDocument(`doc${d}`, terms);
  }
  return builder.finish();
}
