/**
 * The provider-compatible routes (docs/compat-apis.md): OpenAI embeddings and models, Cohere and
 * Jina rerank, TEI embed / rerank / embed_sparse. Each answers errors in its provider's shape.
 * The routes are registered at start-up; their handlers (and request schemas) load on the first
 * request to one of them, so a server nobody calls this way pays nothing for them.
 */
import type { FastifyInstance } from 'fastify';
import type { CompatConfig } from '../../config/compat-schema.js';
import type { AppCore } from '../../core/app-core.js';
import { onDemand } from '../../util/on-demand.js';
import { callOptions } from '../http/call-options.js';
import { sendError } from '../http/errors.js';
import type { CompatHandlers } from './handlers.js';
import { ModelCatalog, type TeiRoute } from './models.js';
import { providerErrorHandler, providerScope } from './provider-errors.js';

/** Whether a `/embed` or `/embed_sparse` body is TEI's (it has `inputs`). */
const isTei = (body: unknown) =>
  body !== null && typeof body === 'object' && Object.hasOwn(body, 'inputs');

/** Calls `use` with the handlers: directly once loaded, after the import the first time. */
type WithHandlers = <T>(use: (handlers: CompatHandlers) => T | Promise<T>) => T | Promise<T>;

function lazyHandlers(core: AppCore, models: ModelCatalog): WithHandlers {
  const handlers = onDemand(async () =>
    (await import('./handlers.js')).compatHandlers(core, models),
  );
  return (use) => {
    const loaded = handlers.current;
    return loaded ? use(loaded) : handlers.get().then(use);
  };
}

/**
 * Registers every compat route on `server`: OpenAI `/v1/embeddings` and `/v1/models` (with
 * `/v1/models/<id>`, ids may hold `/`), `/v1/rerank` (Cohere v1 and Jina), `/v2/rerank` (Cohere
 * v2), and `/embed`, `/embed_sparse` (TEI or irserve by body, each answering errors in the
 * shape of the body's kind) and TEI `/rerank`.
 */
export function compatRoutes(server: FastifyInstance, core: AppCore, config: CompatConfig): void {
  const models = new ModelCatalog(config, core);
  const handlers = lazyHandlers(core, models);
  const embeddings = { config: { serviceOf: modelService(models, 'embeddings') } };
  const rerank = { config: { serviceOf: modelService(models, 'rerank') } };
  providerScope(server, 'openai', (scope) => {
    scope.post('/v1/embeddings', embeddings, (request) => {
      const options = callOptions(request);
      return handlers((h) => h.openAiEmbeddings(request.body, options));
    });
    scope.get('/v1/models', async () => handlers((h) => h.listModels()));
    scope.get('/v1/models/*', async (request) =>
      handlers((h) => h.model((request.params as { '*': string })['*'])),
    );
  });
  providerScope(server, 'rerank-v1', (scope) => {
    scope.post('/v1/rerank', rerank, (request) => {
      const options = callOptions(request);
      return handlers((h) => h.rerank(request.body, 'v1', options));
    });
  });
  providerScope(server, 'cohere', (scope) => {
    scope.post('/v2/rerank', rerank, (request) => {
      const options = callOptions(request);
      return handlers((h) => h.rerank(request.body, 'v2', options));
    });
  });
  teiRoutes(server, handlers, models);
}

/** The metrics' `serviceOf` of a route whose body names a model of `section`. */
function modelService(models: ModelCatalog, section: 'embeddings' | 'rerank') {
  return (body: unknown) => models.serviceOf(section, (body as { model?: unknown } | null)?.model);
}

/** The metrics' `serviceOf` of a TEI route: its model's service for a TEI body. */
function teiService(models: ModelCatalog, route: TeiRoute, always = false) {
  return {
    config: {
      serviceOf: (body: unknown) =>
        always || isTei(body) ? models.teiServiceOf(route) : undefined,
    },
  };
}

function teiRoutes(server: FastifyInstance, handlers: WithHandlers, models: ModelCatalog): void {
  const teiErrors = providerErrorHandler('tei');
  const unreadErrors = providerErrorHandler('tei-or-irserve');
  // A body that was never read (invalid JSON, another content type, refused before) may be
  // either kind: its error is in both shapes.
  const byBody: Parameters<typeof providerScope>[1] = (error, request, reply) =>
    isTei(request.body) || request.url.startsWith('/rerank')
      ? teiErrors(error, request, reply)
      : request.body === undefined
        ? unreadErrors(error, request, reply)
        : sendError(error, request, reply);
  providerScope(server, byBody, (scope) => {
    scope.post('/embed', teiService(models, 'embed'), (request) => {
      const options = callOptions(request);
      return handlers<unknown>((h) =>
        isTei(request.body) ? h.teiEmbed(request.body, options) : h.embed(request.body, options),
      );
    });
    scope.post('/embed_sparse', teiService(models, 'embed_sparse'), (request) => {
      const options = callOptions(request);
      return handlers<unknown>((h) =>
        isTei(request.body)
          ? h.teiEmbedSparse(request.body, options)
          : h.embedSparse(request.body, options),
      );
    });
    scope.post('/rerank', teiService(models, 'rerank', true), (request) => {
      const options = callOptions(request);
      return handlers((h) => h.teiRerank(request.body, options));
    });
  });
}
