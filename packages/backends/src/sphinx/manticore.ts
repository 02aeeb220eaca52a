/**
 * The `Manticore` engine (search role) over an index of Manticore Search or Sphinx, through
 * SphinxQL (the MySQL protocol, `mysql2`): BM25 `MATCH` over a local, real-time or
 * distributed index, or Manticore's `KNN()` with the query embedded by an irserve embedder.
 * `Sphinx` is the same engine under the other name.
 */
import mysql from 'mysql2/promise';
import {
  IrserveError,
  type BatchOptions,
  type EngineInit,
  type Scores,
  type SearchRequest,
  searchNonBlank,
} from 'irserve/plugin';
import { BackendEngine } from '../common/backend-engine.js';
import { secretFrom } from '../common/config.js';
import { searchRequests, type CheckedSearch } from '../common/requests.js';
import { manticoreConfigSchema, parseManticoreConfig, type ManticoreConfig } from './config.js';
import * as sphinxql from './sphinxql.js';

/** A result row as an array (`rowsAsArray`): the statements select the id, then the score. */
type Row = [docid: string | number, score: number | string];

export class Manticore extends BackendEngine<mysql.Pool> {
  static readonly configSchema = manticoreConfigSchema;
  readonly settings: ManticoreConfig;

  constructor(init: EngineInit) {
    super(init);
    this.settings = parseManticoreConfig(init.config);
    const password = secretFrom(undefined, this.settings.password_env);
    const { host, port, index } = this.settings;
    this.attach({
      address: `${this.backendName} at ${host}:${port} (index ${index})`,
      secrets: [password],
      embedding: this.settings.embedding,
      reconnectMaxWait: this.settings.reconnect_max_wait,
      connect: async () => {
        const pool = mysql.createPool({
          host,
          port,
          ...(this.settings.user !== undefined ? { user: this.settings.user } : {}),
          ...(password !== undefined ? { password } : {}),
          connectionLimit: this.settings.pool_size,
          connectTimeout: Math.round(this.settings.timeout * 1000),
          enableKeepAlive: true,
          // No stack captured at every query for the driver's own errors: failures reach the
          // user as ERR_UPSTREAM with the back-end's reason, and the capture walked irserve's
          // deep async stack on each call (30-40 µs a query under load).
          trace: false,
        });
        // A pooled connection the server drops must not crash the process.
        pool.on('connection', (connection) => connection.on('error', this.droppedConnection));
        return pool;
      },
      check: (pool) => this.#checkIndex(pool),
      release: (pool) => pool.end(),
    });
  }

  /** `Manticore` or `Sphinx`, after the class the service names. */
  get backendName(): string {
    return this.constructor.name === 'Sphinx' ? 'Sphinx' : 'Manticore';
  }

  /** A blank query finds nothing without a round trip (docs/errors.md, "Empty queries"). */
  async searchBatch(requests: SearchRequest[], options?: BatchOptions): Promise<Scores[]> {
    const checked = searchRequests(requests, this.name, this.settings.subset_field);
    return searchNonBlank(checked, (asked) => this.#search(asked, options));
  }

  async #search(checked: CheckedSearch[], options?: BatchOptions): Promise<Scores[]> {
    if (this.settings.mode !== 'knn') {
      return Promise.all(
        checked.map(async (request) =>
          // Only punctuation: nothing to match, and a query the server would refuse.
          sphinxql.matchWords(request.query).length === 0
            ? {}
            : this.#scores(sphinxql.matchSearch(this.settings, request), request.limit),
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
        const statement = sphinxql.knnSearch(this.settings, {
          vector: vectors[i]!,
          k,
          subset: request.subset,
        });
        return this.#scores(statement, request.limit);
      }),
    );
  }

  async #scores(statement: sphinxql.Statement, limit: number): Promise<Scores> {
    const rows = await this.#query(statement);
    const scale = sphinxql.weightScale(this.settings);
    const scores: Scores = Object.create(null) as Scores;
    let kept = 0;
    for (let i = 0; i < rows.length && kept < limit; i++) {
      const [docid, score] = rows[i]!;
      const id = typeof docid === 'string' ? docid : String(docid);
      // A repeated id keeps its first row. A lookup (the map has no prototype: own ids only)
      // rather than `in` or Object.hasOwn, which are slower on the driver's new strings.
      if (scores[id] !== undefined) continue;
      scores[id] = Number(score) / scale;
      kept++;
    }
    return scores;
  }

  /** One statement on the pool, retried on a broken connection; failures become ERR_UPSTREAM. */
  async #query(statement: sphinxql.Statement): Promise<Row[]> {
    const [rows] = await this.call(
      (pool) =>
        pool.query({
          sql: statement.sql,
          values: statement.values,
          timeout: Math.round(this.settings.timeout * 1000),
          // Arrays rather than an object per row: the rows are read once, by position.
          rowsAsArray: true,
        }),
      this.settings.retries,
    );
    return rows as Row[];
  }

  /** The configured index must exist on the server (`SHOW TABLES`). */
  async #checkIndex(pool: mysql.Pool): Promise<void> {
    const [rows] = await pool.query({
      sql: 'SHOW TABLES',
      timeout: Math.round(this.settings.timeout * 1000),
    });
    const names = (rows as Record<string, unknown>[]).map((row) => String(Object.values(row)[0]));
    if (!names.includes(this.settings.index))
      throw new IrserveError(
        'ERR_UPSTREAM',
        `index "${this.settings.index}" not found on the server (indexes: ${names.join(', ') || 'none'})`,
      );
  }
}

/** The same engine under Sphinx's name (Sphinx 2.x speaks the same SphinxQL). */
export class Sphinx extends Manticore {}
