/**
 * The `Postgres` engine (search and score roles) over a table of PostgreSQL, Citus or a
 * managed Postgres: full-text search ranked by `ts_rank_cd`, or pgvector kNN (`<#>`, `<=>`,
 * `<->`) with the query embedded by an irserve embedder. Requests of a batch run concurrently
 * on a connection pool; `subset` becomes a `WHERE` on `subset_field`; the table can be served
 * as a collection (`collection`).
 */
import pg from 'pg';
import {
  badRequest,
  type AbortOptions,
  type BatchOptions,
  type Collection,
  type EngineInit,
  type ScoreRequest,
  type Scores,
  type SearchRequest,
  searchNonBlank,
} from 'irserve/plugin';
import { BackendEngine } from '../common/backend-engine.js';
import { secretFrom } from '../common/config.js';
import { similarity } from '../common/similarity.js';
import { backendCollection } from '../common/text-collection.js';
import { deadlineIn } from '../common/no-answer.js';
import { searchRequests, type CheckedSearch } from '../common/requests.js';
import { parsePostgresConfig, postgresConfigSchema, type PostgresConfig } from './config.js';
import { poolConfig, postgresAddress } from './pool-config.js';
import { QueryCanceller } from './query-canceller.js';
import * as sql from './sql.js';

export class Postgres extends BackendEngine<pg.Pool> {
  static readonly configSchema = postgresConfigSchema;
  readonly settings: PostgresConfig;
  readonly #canceller: QueryCanceller;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parsePostgresConfig(init.config);
    const password = secretFrom(undefined, this.settings.password_env);
    const config = poolConfig(this.settings, password);
    this.#canceller = new QueryCanceller(config, this.droppedConnection);
    this.attach({
      address: `PostgreSQL at ${postgresAddress(this.settings)}`,
      secrets: [password],
      embedding: this.settings.embedding,
      reconnectMaxWait: this.settings.reconnect_max_wait,
      connect: async () => {
        const pool = new pg.Pool(config);
        // An idle pooled connection the server drops must not crash the process.
        pool.on('error', this.droppedConnection);
        return pool;
      },
      check: (pool) => {
        const probe = sql.probe(this.settings);
        return pool.query(probe.text, probe.values);
      },
      release: async (pool) => {
        await pool.end();
        await this.#canceller.close();
      },
      ping: () => ping(config),
    });
  }

  get backendName(): string {
    return 'PostgreSQL';
  }

  provideCollections(): Collection[] {
    const name = this.settings.collection;
    if (name === undefined) return [];
    return [
      backendCollection(name, {
        fingerprint: `postgres:${postgresAddress(this.settings)}/${this.settings.table}`,
        get: async (id, options) => {
          const { rows } = await this.#query<{ text: string | null; title?: string | null }>(
            sql.documentById(this.settings, id),
            options,
          );
          const row = rows[0];
          if (row === undefined) return undefined;
          return { id, text: row.text ?? '', ...(row.title ? { title: row.title } : {}) };
        },
      }),
    ];
  }

  /** A blank query finds nothing without a round trip (docs/errors.md, "Empty queries"). */
  async searchBatch(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]> {
    const checked = searchRequests(requests, this.name, this.settings.subset_field);
    return searchNonBlank(checked, (asked) => this.#search(asked, options));
  }

  async #search(checked: CheckedSearch[], options?: BatchOptions): Promise<Scores[]> {
    if (this.settings.mode === 'fulltext') {
      return Promise.all(
        checked.map(async (request) =>
          toScores((await this.#query(sql.fulltextSearch(this.settings, request), options)).rows),
        ),
      );
    }
    const vectors = await this.embedder.embed(
      checked.map((r) => ({ text: r.query, kind: 'query' })),
      options,
    );
    return Promise.all(
      checked.map(async (request, i) => {
        const k = Math.ceil(request.limit * this.settings.k_scale);
        const statement = sql.vectorSearch(this.settings, {
          vector: vectors[i]!,
          k,
          subset: request.subset,
        });
        const { rows } = await this.#query(statement, options, true);
        return toScores(rows.slice(0, request.limit));
      }),
    );
  }

  /** Full-text: `ts_rank_cd` of each passage computed by the server; vector: similarity of embeddings. */
  async scoreBatch(requests: ScoreRequest[], options?: BatchOptions): Promise<number[][]> {
    const texts = requests.map((request) =>
      request.passages.map((passage, i) => {
        if (typeof passage !== 'string')
          throw badRequest(`passages[${i}]: the Postgres engine scores text passages`);
        return passage;
      }),
    );
    if (this.settings.mode === 'fulltext') {
      return Promise.all(
        requests.map(async (request, i) => {
          if (texts[i]!.length === 0) return [];
          const { rows } = await this.#query<{ score: number }>(
            sql.fulltextScore(this.settings, { query: request.query, passages: texts[i]! }),
            options,
          );
          return rows.map((row) => Number(row.score));
        }),
      );
    }
    return similarity(this.embedder, requests, texts, this.settings.distance, options);
  }

  /**
   * One statement on the pool, retried on a broken connection, all within the engine's
   * `timeout`; failures become ERR_UPSTREAM (ERR_UPSTREAM_TIMEOUT past the timeout). With a
   * batch's (or a lookup's) `options`, the statement is cancelled on the server once nobody
   * waits for its answer (QueryCanceller).
   */
  #query<Row extends object = { id: string; score: number }>(
    statement: sql.Statement,
    options?: AbortOptions,
    vectorSettings = false,
  ): Promise<pg.QueryResult<Row>> {
    const knobs = this.settings.ef_search !== undefined || this.settings.probes !== undefined;
    const run = (client: pg.PoolClient) =>
      vectorSettings && knobs
        ? this.#withVectorSettings<Row>(client, statement)
        : client.query<Row>(statement.text, statement.values);
    // One deadline for the wait for a connection, the statement and its retries.
    const deadline = deadlineIn(this.settings.timeout);
    return this.call(
      (pool) => this.#canceller.withClient(pool, options, run, deadline),
      this.settings.retries,
    );
  }

  /** `SET LOCAL` of pgvector's search knobs and the search, in one transaction on `client`. */
  async #withVectorSettings<Row extends object>(client: pg.PoolClient, statement: sql.Statement) {
    try {
      await client.query('BEGIN');
      if (this.settings.ef_search !== undefined)
        await client.query(`SET LOCAL hnsw.ef_search = ${this.settings.ef_search}`);
      if (this.settings.probes !== undefined)
        await client.query(`SET LOCAL ivfflat.probes = ${this.settings.probes}`);
      const result = await client.query<Row>(statement.text, statement.values);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}

function toScores(rows: { id: string; score: number }[]): Scores {
  const scores: Scores = Object.create(null) as Scores;
  for (const row of rows) if (!Object.hasOwn(scores, row.id)) scores[row.id] = Number(row.score);
  return scores;
}

/** A server that answers no ping within this long (or the engine's `timeout`) is down. */
const PING_LIMIT_MS = 5_000;

/**
 * `SELECT 1` on a connection of its own, within the engine's `timeout` but never less than
 * PING_LIMIT_MS: a loaded machine's slow authentication must not pass for a frozen server.
 */
async function ping(config: pg.PoolConfig): Promise<void> {
  const limit = Math.max(config.connectionTimeoutMillis ?? 0, PING_LIMIT_MS);
  const client = new pg.Client({ ...config, connectionTimeoutMillis: limit, query_timeout: limit });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    // Not awaited: a server that does not answer would hold the goodbye too.
    void client.end().catch(() => undefined);
  }
}
