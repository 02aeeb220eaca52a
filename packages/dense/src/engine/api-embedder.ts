/** Embeddings from an OpenAI-compatible API (`embedding_base_url`). */
import type { Logger } from 'pino';
import { OpenAIEmbeddingsClient } from 'irserve';
import type { DenseConfig } from './config.js';
import type { Embedder } from './embedder.js';

/**
 * An Embedder over the configured API.
 *
 * @example
 * const embedder = apiEmbedder(settings, 'dense', logger);
 */
export function apiEmbedder(settings: DenseConfig, service: string, logger: Logger): Embedder {
  const apiKey = settings.api_key ?? process.env[settings.api_key_env];
  const client = new OpenAIEmbeddingsClient({
    baseUrl: settings.embedding_base_url!,
    model: settings.embedding_model_name!,
    ...(apiKey ? { apiKey } : {}),
    ...(settings.dimensions ? { dimensions: settings.dimensions } : {}),
    timeoutMs: settings.timeout * 1000,
    retries: settings.retries,
    service,
    logger,
  });
  return {
    embed: (texts, options) => client.embed(texts, options?.signal),
    dimension: settings.dimensions,
    label: `the embedding model ${settings.embedding_model_name}`,
    close: () => client.close(),
  };
}
