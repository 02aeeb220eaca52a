/**
 * The wire formats of rerank APIs. Cohere, Jina, Voyage and vLLM's `/v1/rerank` share one shape
 * (`{model, query, documents, top_n}` -> `results[{index, relevance_score}]`, Voyage says `top_k`
 * and `data`); Hugging Face TEI's `/rerank` takes `texts` and answers a bare list of
 * `{index, score}`; vLLM's `/score` takes `text_1`/`text_2` and answers `data[{index, score}]`.
 */

export const RERANK_FORMATS = ['cohere', 'jina', 'voyage', 'tei', 'vllm', 'vllm-score'] as const;
export type RerankFormat = (typeof RERANK_FORMATS)[number];

export interface RerankWire {
  /** Named in errors. */
  provider: string;
  /** Path under the base URL when the config gives none. */
  path: string;
  /** Documents per call when the config gives no `max_documents_per_call`. */
  maxDocuments: number;
}

export const RERANK_WIRES: Record<RerankFormat, RerankWire> = {
  cohere: { provider: 'Cohere-compatible rerank API', path: '/v1/rerank', maxDocuments: 1000 },
  jina: { provider: 'Jina rerank API', path: '/v1/rerank', maxDocuments: 1000 },
  voyage: { provider: 'Voyage rerank API', path: '/v1/rerank', maxDocuments: 1000 },
  // TEI refuses more than `--max-client-batch-size` texts, 32 by default.
  tei: { provider: 'TEI rerank API', path: '/rerank', maxDocuments: 32 },
  vllm: { provider: 'vLLM rerank API', path: '/v1/rerank', maxDocuments: 1000 },
  'vllm-score': { provider: 'vLLM score API', path: '/score', maxDocuments: 1000 },
};

export interface RerankCall {
  model: string | undefined;
  query: string;
  documents: string[];
  truncate: boolean;
  rawScores: boolean;
}

/**
 * The request body for one call.
 *
 * @example
 * rerankBody('tei', { model: undefined, query: 'q', documents: ['a'], truncate: true, rawScores: false })
 * // { query: 'q', texts: ['a'], truncate: true, raw_scores: false }
 */
export function rerankBody(format: RerankFormat, call: RerankCall): Record<string, unknown> {
  const { model, query, documents } = call;
  switch (format) {
    case 'tei':
      return { query, texts: documents, truncate: call.truncate, raw_scores: call.rawScores };
    case 'vllm-score':
      return { model, text_1: query, text_2: documents };
    case 'voyage':
      return {
        model,
        query,
        documents,
        top_k: documents.length,
        return_documents: false,
        truncation: call.truncate,
      };
    case 'cohere':
    case 'jina':
    case 'vllm':
      return { model, query, documents, top_n: documents.length, return_documents: false };
  }
}

/**
 * Scores in document order from any of the answer shapes; a string describing the problem when
 * the answer is malformed, lacks a document, or repeats one.
 *
 * @example
 * rerankScores({ results: [{ index: 1, relevance_score: 0.2 }, { index: 0, relevance_score: 0.9 }] }, 2)
 * // [0.9, 0.2]
 */
export function rerankScores(answer: unknown, count: number): number[] | string {
  const list = Array.isArray(answer)
    ? answer
    : ((answer as { results?: unknown; data?: unknown } | null)?.results ??
      (answer as { data?: unknown } | null)?.data);
  if (!Array.isArray(list)) return 'no `results` or `data` list';
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of list) {
    const { index, relevance_score, score } = (item ?? {}) as Record<string, unknown>;
    const value = relevance_score ?? score;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count)
      return `a result with index ${String(index)} for ${count} documents`;
    if (typeof value !== 'number' || !Number.isFinite(value))
      return `a result without a numeric score (index ${String(index)})`;
    if (scores[index as number] !== undefined) return `two results with index ${String(index)}`;
    scores[index as number] = value;
  }
  const missing = scores.filter((s) => s === undefined).length;
  if (missing > 0) return `${count - missing} scores for ${count} documents`;
  return scores as number[];
}
