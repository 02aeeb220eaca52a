/**
 * Embeds queries (and passages, for the score role) for kNN back-ends, through either an
 * embedder service of this app (any engine with `embedBatch`: a local ONNX model, a GPU
 * encoder, the Dense engine) or an OpenAI-compatible embeddings API of its own.
 */
import { OpenAIEmbeddingsClient } from 'irserve';
import { IrserveError, type BatchOptions, type Engine, type EngineContext } from 'irserve/plugin';
import type { EmbeddingSettings } from './config.js';

export interface EmbedItem {
  text: string;
  kind: 'query' | 'passage';
}

/** The capability an embedder service offers (issue 23's contract). */
interface Embedder {
  embedBatch(requests: EmbedItem[], options?: BatchOptions): Promise<Float32Array[]>;
}

/**
 * @example
 * const embedder = new QueryEmbedder({ service: 'e5' }, { name: 'os-knn', context });
 * const [vector] = await embedder.embed([{ text: 'cats', kind: 'query' }]);
 */
export class QueryEmbedder {
  readonly #settings: EmbeddingSettings;
  readonly #name: string;
  readonly #context: EngineContext;
  readonly #client: OpenAIEmbeddingsClient | undefined;

  constructor(settings: EmbeddingSettings, owner: { name: string; context: EngineContext }) {
    this.#settings = settings;
    this.#name = owner.name;
    this.#context = owner.context;
    if ('base_url' in settings) {
      const apiKey = settings.api_key ?? process.env[settings.api_key_env];
      this.#client = new OpenAIEmbeddingsClient({
        baseUrl: settings.base_url,
        model: settings.model,
        ...(apiKey ? { apiKey } : {}),
        ...(settings.dimensions ? { dimensions: settings.dimensions } : {}),
        timeoutMs: settings.timeout * 1000,
        retries: settings.retries,
        service: owner.name,
        logger: owner.context.logger,
      });
    }
  }

  /** Fails the start when the named embedder service does not exist or cannot embed. */
  check(): void {
    if (this.#client === undefined) this.#service();
  }

  /**
   * One vector per item, in order; identical texts are embedded once. `options` are the
   * batch's: an API call stops when its signal aborts, an embedder service gets them as is.
   */
  async embed(items: EmbedItem[], options?: BatchOptions): Promise<Float32Array[]> {
    if (items.length === 0) return [];
    const prompted = items.map((item) => ({ kind: item.kind, text: this.#prompt(item) }));
    const keys = prompted.map((item) => `${item.kind}\0${item.text}`);
    const unique = [...new Set(keys)];
    const firstOf = new Map(keys.map((key, i) => [key, prompted[i]!]));
    const wanted = unique.map((key) => firstOf.get(key)!);
    const vectors =
      this.#client !== undefined
        ? await this.#client.embed(
            wanted.map((item) => item.text),
            options?.signal,
          )
        : await this.#service().embedBatch(wanted, options);
    if (!Array.isArray(vectors) || vectors.length !== wanted.length)
      throw new IrserveError(
        'ERR_ENGINE',
        `service "${this.#name}": the embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${wanted.length} texts`,
      );
    const byKey = new Map(unique.map((key, i) => [key, vectors[i]!]));
    return keys.map((key) => byKey.get(key)!);
  }

  async close(): Promise<void> {
    await this.#client?.close();
  }

  #prompt(item: EmbedItem): string {
    return item.kind === 'query'
      ? this.#settings.query_prompt.split('{query}').join(item.text)
      : this.#settings.passage_prompt.split('{passage}').join(item.text);
  }

  #service(): Embedder {
    const name = 'service' in this.#settings ? this.#settings.service : '';
    const engine: (Engine & Partial<Embedder>) | undefined = this.#context.engine?.(name);
    if (engine === undefined)
      throw new IrserveError(
        'ERR_CONFIG',
        `service "${this.#name}": config.embedding.service: no service named "${name}" in this app`,
      );
    if (typeof engine.embedBatch !== 'function')
      throw new IrserveError(
        'ERR_CONFIG',
        `service "${this.#name}": config.embedding.service: service "${name}" cannot embed (its engine has no embedBatch method)`,
      );
    return engine as Embedder;
  }
}
