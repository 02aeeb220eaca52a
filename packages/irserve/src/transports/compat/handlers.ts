/**
 * The handlers of the provider-compatible routes over one app. `compat/index.ts` registers the
 * routes at start-up and imports this module (with the OpenAI, Cohere/Jina and TEI modules and
 * their request schemas) on the first request to one of them.
 */
import type { AppCore } from '../../core/app-core.js';
import { embed, embedSparse } from '../../core/embed-request.js';
import { IrserveError } from '../../errors.js';
import type { CallOptions } from '../../registry/types.js';
import type { ModelCatalog } from './models.js';
import { openAiEmbeddings } from './openai.js';
import { rerank, type RerankVersion } from './rerank.js';
import { teiEmbed, teiEmbedSparse, teiRerank } from './tei.js';

/**
 * One app's compat handlers: each takes the request body (or path id) and the call options.
 *
 * @example
 * const handlers = compatHandlers(core, new ModelCatalog(config.compat, core));
 * await handlers.rerank({ model: 'm', query: 'q', documents: ['a'] }, 'v2', {});
 */
export function compatHandlers(core: AppCore, models: ModelCatalog) {
  return {
    openAiEmbeddings: (body: unknown, options: CallOptions) =>
      openAiEmbeddings(core, models, body, options),
    listModels: () => ({ object: 'list', data: models.list() }),
    model: (id: string) => {
      const found = models.list().find((model) => model.id === id);
      if (found) return found;
      throw new IrserveError('ERR_SERVICE_NOT_FOUND', `model '${id}' does not exist`, {
        details: { model: id },
      });
    },
    rerank: (body: unknown, version: RerankVersion, options: CallOptions) =>
      rerank(core, models, body, version, options),
    teiEmbed: (body: unknown, options: CallOptions) => teiEmbed(core, models, body, options),
    teiEmbedSparse: (body: unknown, options: CallOptions) =>
      teiEmbedSparse(core, models, body, options),
    teiRerank: (body: unknown, options: CallOptions) => teiRerank(core, models, body, options),
    embed: (body: unknown, options: CallOptions) => embed(core, body, options),
    embedSparse: (body: unknown, options: CallOptions) => embedSparse(core, body, options),
  };
}

export type CompatHandlers = ReturnType<typeof compatHandlers>;
