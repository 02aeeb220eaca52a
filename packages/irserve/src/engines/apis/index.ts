/** Engines backed by model APIs (docs/model-apis.md), and the clients they share. */
import type { EngineClass } from '../contract.js';
import { OpenAIEmbeddingScorer } from './embedding-scorer.js';
import { LLMDecomposer } from './llm-decomposer.js';
import { LLMScorer } from './llm-scorer.js';
import { RerankAPI } from './rerank-api.js';

export { OpenAIEmbeddingScorer, LLMDecomposer, LLMScorer, RerankAPI };
export { OpenAIEmbeddingsClient, type EmbeddingsClientOptions } from './openai-embeddings.js';
export { ApiHttpClient, type ApiHttpOptions } from './api-http.js';

/** The model-API engines, for the built-in registry. */
export const API_ENGINES: readonly EngineClass[] = [
  RerankAPI,
  LLMScorer,
  LLMDecomposer,
  OpenAIEmbeddingScorer,
];
