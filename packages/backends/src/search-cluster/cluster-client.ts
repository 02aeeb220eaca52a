/**
 * The two official clients behind one small interface: `msearch` (a batch of searches in one
 * HTTP call), `search`, `getSource` and `check`. OpenSearch's client wraps answers in
 * `{ body }` and takes `body`; Elasticsearch's returns the body and takes `searches`.
 */
import { Client as ElasticClient } from '@elastic/elasticsearch';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { IrserveError, onBatchAbort, type AbortOptions } from 'irserve/plugin';
import type { ClusterConfig } from './config.js';
import type { Flavor } from './query-body.js';

export interface Hit {
  _id: string;
  _score: number | null;
  _source?: Record<string, unknown>;
}

interface SearchAnswer {
  hits?: { hits?: Hit[] };
  error?: { type?: string; reason?: string } | string;
  status?: number;
}

export interface ClusterClient {
  readonly flavor: Flavor;
  /** Resolves when the cluster answers and the index exists. */
  check(index: string): Promise<void>;
  /**
   * One `_msearch` call; the hits of each body, in order. The HTTP request is cut once nobody
   * waits for the batch (`options`): the cluster cancels a search whose connection closes.
   */
  msearch(
    index: string,
    bodies: Record<string, unknown>[],
    options?: AbortOptions,
  ): Promise<Hit[][]>;
  /** A document's `_source` by `_id`, or undefined when the index has none; cut like `msearch`. */
  getSource(
    index: string,
    id: string,
    options?: AbortOptions,
  ): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export interface Credentials {
  username?: string | undefined;
  password?: string | undefined;
  apiKey?: string | undefined;
}

/**
 * Runs an Elasticsearch client call that is cut (its HTTP request closed) once nobody waits for
 * it. An AbortController of our own, not the caller's signal: aborted with that signal's reason
 * the client reports a connection error, which would list the service as down.
 */
async function cutOnAbort<T>(
  options: AbortOptions | undefined,
  call: (transport: { signal: AbortSignal } | undefined) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const stopListening = onBatchAbort(options, () => controller.abort());
  try {
    return await call(stopListening === undefined ? undefined : { signal: controller.signal });
  } finally {
    stopListening?.();
  }
}

/** Client options both clients accept: nodes, auth, request timeout, retries on dead nodes. */
function commonOptions(config: ClusterConfig, credentials: Credentials) {
  const auth =
    credentials.apiKey !== undefined
      ? { apiKey: credentials.apiKey }
      : credentials.username !== undefined
        ? { username: credentials.username, password: credentials.password ?? '' }
        : undefined;
  return {
    nodes: Array.isArray(config.node) ? config.node : [config.node],
    ...(auth ? { auth } : {}),
    requestTimeout: Math.round(config.timeout * 1000),
    maxRetries: config.retries,
    ...(config.tls_insecure
      ? { ssl: { rejectUnauthorized: false }, tls: { rejectUnauthorized: false } }
      : {}),
  };
}

/** The item's hits, or ERR_UPSTREAM with the cluster's reason. */
function hitsOf(answer: SearchAnswer): Hit[] {
  if (answer.error !== undefined) {
    const reason =
      typeof answer.error === 'string'
        ? answer.error
        : `${answer.error.type}: ${answer.error.reason}`;
    throw new IrserveError(
      'ERR_UPSTREAM',
      `search failed (status ${answer.status ?? '?'}): ${reason}`,
    );
  }
  return answer.hits?.hits ?? [];
}

function isNotFound(error: unknown): boolean {
  return (error as { meta?: { statusCode?: number } }).meta?.statusCode === 404;
}

/**
 * @example
 * const client = clusterClient('opensearch', config, { username: 'admin', password });
 * const [hits] = await client.msearch('docs', [{ query: { match_all: {} } }]);
 */
export function clusterClient(
  flavor: Flavor,
  config: ClusterConfig,
  credentials: Credentials,
): ClusterClient {
  return flavor === 'opensearch'
    ? openSearchClient(config, credentials)
    : elasticClient(config, credentials);
}

function openSearchClient(config: ClusterConfig, credentials: Credentials): ClusterClient {
  const options = commonOptions(config, credentials);
  const { tls: _tls, ...rest } = options as typeof options & { tls?: unknown };
  const client = new OpenSearchClient({ ...rest, node: rest.nodes } as never);
  return {
    flavor: 'opensearch',
    async check(index) {
      const { body } = await client.indices.exists({ index });
      if (!body) throw new Error(`index "${index}" does not exist`);
    },
    async msearch(index, bodies, options) {
      const request = client.msearch({ index, body: bodies.flatMap((b) => [{}, b]) });
      const stopListening = onBatchAbort(options, () => request.abort());
      try {
        const { body } = await request;
        return ((body as { responses: SearchAnswer[] }).responses ?? []).map(hitsOf);
      } finally {
        stopListening?.();
      }
    },
    async getSource(index, id, options) {
      const request = client.get({ index, id });
      const stopListening = onBatchAbort(options, () => request.abort());
      try {
        const { body } = await request;
        return (body as { found?: boolean; _source?: Record<string, unknown> }).found
          ? ((body as { _source?: Record<string, unknown> })._source ?? {})
          : undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      } finally {
        stopListening?.();
      }
    },
    close: () => client.close(),
  };
}

function elasticClient(config: ClusterConfig, credentials: Credentials): ClusterClient {
  const options = commonOptions(config, credentials);
  const { ssl: _ssl, ...rest } = options as typeof options & { ssl?: unknown };
  const client = new ElasticClient(rest);
  return {
    flavor: 'elasticsearch',
    async check(index) {
      if (!(await client.indices.exists({ index })))
        throw new Error(`index "${index}" does not exist`);
    },
    async msearch(index, bodies, options) {
      const answer = await cutOnAbort(options, (transport) =>
        client.msearch({ index, searches: bodies.flatMap((b) => [{}, b]) }, transport),
      );
      return ((answer as unknown as { responses: SearchAnswer[] }).responses ?? []).map(hitsOf);
    },
    async getSource(index, id, options) {
      try {
        const answer = (await cutOnAbort(options, (transport) =>
          client.get({ index, id }, transport),
        )) as {
          found?: boolean;
          _source?: Record<string, unknown>;
        };
        return answer.found ? (answer._source ?? {}) : undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    close: () => client.close(),
  };
}
