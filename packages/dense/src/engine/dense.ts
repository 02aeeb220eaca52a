import { BaseEngine, type SearchRequest, type Scores } from 'irserve/plugin';

/** Dense retrieval over a vector index (placeholder while the package is assembled). */
export class Dense extends BaseEngine {
  async searchBatch(requests: SearchRequest[]): Promise<Scores[]> {
    return requests.map(() => ({}));
  }
}
