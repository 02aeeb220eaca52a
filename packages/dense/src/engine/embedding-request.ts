/**
 * The embedding capability's request (issue 23's engine contract addition): engines with an
 * `embedBatch` method embed one text per request, applying their prompts by `kind`.
 */
import { badRequest } from 'irserve/plugin';

export interface EmbeddingRequest {
  text: string;
  kind: 'query' | 'passage';
  [field: string]: unknown;
}

/**
 * Checks each request's `text` and `kind` (a 400 naming the item otherwise).
 *
 * @example
 * embeddingRequests([{ text: 'cats', kind: 'query' }])
 */
export function embeddingRequests(requests: readonly EmbeddingRequest[]): EmbeddingRequest[] {
  return requests.map((request, i) => {
    if (typeof request?.text !== 'string')
      throw badRequest(`requests[${i}].text: must be a string`);
    if (request.kind !== 'query' && request.kind !== 'passage')
      throw badRequest(`requests[${i}].kind: must be "query" or "passage"`);
    return request;
  });
}
