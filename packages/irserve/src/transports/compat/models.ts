/**
 * Model names of the provider-compatible routes: what `compat` maps, plus every embed, sparse
 * embed and score service under its own name (unless `expose_services` is false). Resolved per
 * request, since imported score services can appear after start-up.
 */
import type { CompatConfig } from '../../config/compat-schema.js';
import type { AppCore } from '../../core/app-core.js';
import type { EmbedKind } from '../../engines/contract.js';
import { IrserveError } from '../../errors.js';

export interface EmbeddingModel {
  readonly id: string;
  readonly service: string;
  readonly kind: EmbedKind;
  readonly matryoshka: boolean;
}

export interface RerankModel {
  readonly id: string;
  /** A score service (called directly), or a pipeline expression or alias (run as a reranker). */
  readonly target: { readonly type: 'service' | 'pipeline'; readonly name: string };
}

type Section = 'embeddings' | 'sparse_embeddings' | 'rerank';

/** What `/v1/models` lists per model name (one entry per name). */
export interface ModelListing {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'irserve';
  /**
   * irserve extension: what the name serves, each with the service (or rerank pipeline) behind
   * it, e.g. `{"embeddings": "dense", "rerank": "dense"}` for a service that embeds and scores.
   */
  capabilities: Partial<Record<Section, string>>;
  description?: string;
}

type EmbedSection = 'embeddings' | 'sparse_embeddings';
const SECTION_CAPABILITY = { embeddings: 'embed', sparse_embeddings: 'embed_sparse' } as const;

export type TeiRoute = 'embed' | 'rerank' | 'embed_sparse';
/** The section of `compat` whose models each TEI route serves. */
const TEI_SECTION = {
  embed: 'embeddings',
  rerank: 'rerank',
  embed_sparse: 'sparse_embeddings',
} as const satisfies Record<TeiRoute, Section>;

/** Model lookups over one app's services and its `compat` config. */
export class ModelCatalog {
  constructor(
    private readonly config: CompatConfig,
    private readonly core: AppCore,
  ) {}

  /**
   * The embedding model of that name; ERR_SERVICE_NOT_FOUND (with `model` in details) when
   * neither `compat` nor an exposed service has it.
   *
   * @example
   * catalog.embedding('text-embedding-3-small') // { id, service: 'e5', kind: 'passage', matryoshka: false }
   */
  embedding(id: string, section: EmbedSection = 'embeddings'): EmbeddingModel {
    const entry = this.config[section][id];
    const capability = SECTION_CAPABILITY[section];
    if (entry !== undefined) {
      const model =
        typeof entry === 'string'
          ? { id, service: entry, kind: 'passage' as const, matryoshka: false }
          : { id, service: entry.service, kind: entry.kind, matryoshka: entry.matryoshka };
      if (!this.core.services.has(capability, model.service))
        throw misconfigured(id, `compat.${section}`, model.service, capability);
      return model;
    }
    if (this.config.expose_services && this.core.services.has(capability, id))
      return { id, service: id, kind: 'passage', matryoshka: false };
    throw unknownModel(id, capability, this.#ids(section));
  }

  /** The rerank model of that name: a score service, or a pipeline run as a reranker. */
  rerank(id: string): RerankModel {
    const entry = this.config.rerank[id];
    const name = typeof entry === 'string' ? entry : entry?.service;
    if (name !== undefined) {
      const isService = this.core.services.has('score', name);
      return { id, target: { type: isService ? 'service' : 'pipeline', name } };
    }
    if (this.config.expose_services && this.core.services.has('score', id))
      return { id, target: { type: 'service', name: id } };
    throw unknownModel(id, 'score', this.#ids('rerank'));
  }

  /** The model a TEI route serves: `compat.tei.<route>`, else the only one there is. */
  teiModel(route: TeiRoute): string {
    const configured = this.config.tei[route];
    if (configured !== undefined) return configured;
    const section = TEI_SECTION[route];
    const ids = this.#ids(section);
    // A model mapped under a name and also exposed under its service's name is one model.
    const targets = new Set(ids.map((id) => this.#target(section, id)));
    if (targets.size === 1) return ids[0]!;
    throw new IrserveError(
      'ERR_SERVICE_NOT_FOUND',
      ids.length === 0
        ? `no model serves TEI /${route}: map one in compat.${section}`
        : `TEI /${route} carries no model name and ${ids.length} models could serve it (${ids.join(', ')}): choose one with compat.tei.${route}`,
      { details: { route: `/${route}` } },
    );
  }

  /**
   * Everything the routes serve, as `/v1/models` lists it: one entry per name, with every
   * capability the name has (a service that embeds and scores is one model that does both).
   */
  list(): ModelListing[] {
    const byId = new Map<string, ModelListing>();
    for (const section of ['embeddings', 'sparse_embeddings', 'rerank'] as const) {
      for (const id of this.#ids(section)) {
        let listing = byId.get(id);
        if (!listing) {
          listing = { id, object: 'model', created: 0, owned_by: 'irserve', capabilities: {} };
          byId.set(id, listing);
        }
        listing.capabilities[section] = this.#target(section, id);
        const entry = this.config[section][id];
        if (typeof entry === 'object' && entry.description !== undefined)
          listing.description ??= entry.description;
      }
    }
    return [...byId.values()];
  }

  /**
   * The service (or rerank pipeline) a model id names, or undefined; never throws. It is what
   * the request metrics count a compat request under (irserve_requests_total's `service`).
   */
  serviceOf(section: Section, id: unknown): string | undefined {
    if (typeof id !== 'string') return undefined;
    if (Object.hasOwn(this.config[section], id)) return this.#target(section, id);
    return this.config.expose_services ? id : undefined;
  }

  /** The service behind a TEI route's model, or undefined when none or several could be. */
  teiServiceOf(route: TeiRoute): string | undefined {
    try {
      return this.serviceOf(TEI_SECTION[route], this.teiModel(route));
    } catch {
      return undefined;
    }
  }

  /** The service (or pipeline) a model id of a section stands for. */
  #target(section: Section, id: string): string {
    const entry = this.config[section][id];
    return typeof entry === 'string' ? entry : (entry?.service ?? id);
  }

  /** Model ids of a section: the mapped names, then exposed services not mapped under their name. */
  #ids(section: Section): string[] {
    const mapped = Object.keys(this.config[section]);
    if (!this.config.expose_services) return mapped;
    const capability = section === 'rerank' ? 'score' : SECTION_CAPABILITY[section];
    const own = this.core.services.names(capability).filter((name) => !mapped.includes(name));
    return [...mapped, ...own];
  }
}

function unknownModel(id: string, capability: string, known: string[]): IrserveError {
  const list = known.length > 0 ? known.join(', ') : 'none';
  return new IrserveError(
    'ERR_SERVICE_NOT_FOUND',
    `model '${id}' does not exist or does not support ${capability}; models: ${list}`,
    { details: { model: id, field: 'model' } },
  );
}

function misconfigured(id: string, path: string, service: string, capability: string) {
  return new IrserveError(
    'ERR_SERVICE_NOT_FOUND',
    `model '${id}' maps (${path}) to service '${service}', which has no ${capability} capability`,
    { details: { model: id, service, field: 'model' } },
  );
}
