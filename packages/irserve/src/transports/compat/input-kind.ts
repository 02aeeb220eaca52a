import type { EmbedKind } from '../../engines/contract.js';

/**
 * `input_type` spellings of the embedding APIs, to irserve's kind: Cohere `search_query` /
 * `search_document`, Voyage `query` / `document`, Jina `retrieval.query` / `retrieval.passage`.
 */
export const INPUT_TYPES: Record<string, EmbedKind> = {
  query: 'query',
  search_query: 'query',
  'retrieval.query': 'query',
  passage: 'passage',
  document: 'passage',
  search_document: 'passage',
  'retrieval.passage': 'passage',
};
