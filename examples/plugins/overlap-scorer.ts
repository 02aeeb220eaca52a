// A pointwise scorer written in TypeScript, loaded through `file_imports` as it is (irserve
// strips the types). It imports only types from irserve, so it type-checks in an editor.
import type { ScoreRequest } from 'irserve/plugin';

export class OverlapScorer {
  /** Fraction of query words that occur in each passage. */
  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    return requests.map(({ query, passages }) => {
      const terms = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
      return passages.map((passage) => {
        if (typeof passage !== 'string' || terms.size === 0) return 0;
        const words = new Set(passage.toLowerCase().split(/\W+/));
        let hits = 0;
        for (const term of terms) if (words.has(term)) hits++;
        return hits / terms.size;
      });
    });
  }
}
