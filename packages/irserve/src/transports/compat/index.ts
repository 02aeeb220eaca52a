/**
 * The provider-compatible routes (docs/compat-apis.md): OpenAI embeddings and models, Cohere and
 * Jina rerank, TEI embed / rerank / embed_sparse. Each answers errors in its provider's shape.
 */
import type { FastifyInstance } from 'fastify';
import type { CompatConfig } from '../../config/compat-schema.js';
import type { AppCore } from '../../core/app-core.js';
import { ModelCatalog } from './models.js';
import { openAiRoutes } from './openai.js';
import { rerankRoutes } from './rerank.js';
import { teiRoutes } from './tei.js';

export { ModelCatalog } from './models.js';

/** Registers every compat route on `server`. */
export function compatRoutes(server: FastifyInstance, core: AppCore, config: CompatConfig): void {
  const models = new ModelCatalog(config, core);
  openAiRoutes(server, core, models);
  rerankRoutes(server, core, models);
  teiRoutes(server, core, models);
}
