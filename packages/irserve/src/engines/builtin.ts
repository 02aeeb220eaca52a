import type { EngineClass } from './contract.js';
import { FUSION_ENGINES } from './fusion/index.js';

/**
 * The engines that ship with the core package, by name, each loaded on demand: a config that
 * uses no model API never loads the HTTP client, and one without BM25 never loads its indexer.
 * The fusion rules are small and always served, so they are here already.
 */
export const BUILTIN_ENGINES: Readonly<Record<string, () => Promise<EngineClass>>> = {
  BM25: async () => (await import('./bm25/index.js')).BM25,
  ...Object.fromEntries(FUSION_ENGINES.map((rule) => [rule.name, async () => rule])),
  RerankAPI: async () => (await import('./apis/rerank-api.js')).RerankAPI,
  LLMScorer: async () => (await import('./apis/llm-scorer.js')).LLMScorer,
  LLMDecomposer: async () => (await import('./apis/llm-decomposer.js')).LLMDecomposer,
  OpenAIEmbeddingScorer: async () =>
    (await import('./apis/embedding-scorer.js')).OpenAIEmbeddingScorer,
};

/**
 * Every built-in engine class, loaded.
 *
 * @example
 * (await builtinEngines()).map((engine) => engine.name) // ['BM25', 'RRF', ...]
 */
export async function builtinEngines(): Promise<EngineClass[]> {
  return Promise.all(Object.values(BUILTIN_ENGINES).map((load) => load()));
}
