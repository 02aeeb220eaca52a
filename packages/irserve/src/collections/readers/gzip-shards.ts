/**
 * Sharded gzip reader (spec "Document readers"): ids name a shard and the byte offset of their
 * line in the decompressed shard. Each shard is decompressed once into a sidecar (see
 * gunzip-cache.ts); a lookup is one positioned read. `force_load_all` keeps every line in memory.
 */
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { ReaderContext } from '../context.js';
import { discoverShards, formatShard } from '../tar/shard-template.js';
import { createProgress } from '../../util/progress.js';
import { checkLocation, type IdParser } from './gzip-id.js';
import { gunzipCached } from './gunzip-cache.js';
import { readLineAt } from './read-line.js';
import { idOf } from '../offset-map/line-id.js';

export interface GzipShardsOptions {
  /** Absolute shard path pattern with `{shard}` in the file name. */
  pattern: string;
  idField: string;
  loadParser: () => Promise<IdParser>;
  numWorkers: number;
  forceLoadAll: boolean;
  cacheDir: string | undefined;
}

export class GzipShardReader {
  readonly path: string;
  readonly #options: GzipShardsOptions;
  readonly #context: ReaderContext;
  readonly #shards = new Map<string, Promise<{ data: string; handle: FileHandle }>>();
  #parser: IdParser | undefined;
  #all: Map<string, string> | undefined;
  #opening: Promise<void> | undefined;

  constructor(options: GzipShardsOptions, context: ReaderContext) {
    this.#options = options;
    this.#context = context;
    this.path = options.pattern;
  }

  /** Loads the id parser and prepares every shard on disk, `num_workers` at a time. Idempotent. */
  open(): Promise<void> {
    this.#opening ??= this.#open().catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    return this.#opening;
  }

  async #open(): Promise<void> {
    this.#parser = await this.#options.loadParser();
    const paths = await discoverShards(this.#options.pattern);
    const { logger, interactive } = this.#context;
    const progress = createProgress({
      label: `gzip shards ${basename(this.#options.pattern)}`,
      total: paths.length,
      interactive,
      logger,
      unit: 'shards',
    });
    const queue = [...paths];
    const worker = async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        await this.#shard(path);
        progress.tick();
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.#options.numWorkers, paths.length) }, worker),
    ).finally(() => progress.done());
    if (this.#options.forceLoadAll) this.#all = await this.#loadAll(paths);
  }

  /** The decompressed copy of a shard (made once) and an open handle on it. */
  #shard(path: string): Promise<{ data: string; handle: FileHandle }> {
    let shard = this.#shards.get(path);
    if (!shard) {
      shard = gunzipCached(path, this.#options.cacheDir, this.#context).then(async (data) => ({
        data,
        handle: await open(data, 'r'),
      }));
      shard.catch(() => this.#shards.delete(path));
      this.#shards.set(path, shard);
    }
    return shard;
  }

  async #loadAll(paths: string[]): Promise<Map<string, string>> {
    const all = new Map<string, string>();
    for (const path of paths) {
      const { data } = await this.#shard(path);
      const lines = createInterface({ input: createReadStream(data), crlfDelay: Infinity });
      for await (const line of lines) {
        try {
          const id = idOf(JSON.parse(line) as Record<string, unknown>, this.#options.idField);
          if (id !== undefined) all.set(id, line);
        } catch {
          // unparseable lines are skipped, as by the offset-map builder
        }
      }
    }
    this.#context.logger.info(
      { pattern: this.#options.pattern, documents: all.size },
      'gzip shards loaded into memory',
    );
    return all;
  }

  /** The shard file of an id, or undefined when the id does not name one. */
  #locate(id: string): { path: string; offset: number } | undefined {
    const location = checkLocation(this.#parser!(id));
    if (!location || /[\0/\\]/.test(String(location.shard))) return undefined;
    const path = formatShard(this.#options.pattern, location.shard);
    if (dirname(resolve(path)) !== dirname(resolve(this.#options.pattern))) return undefined;
    return { path, offset: location.offset };
  }

  /** The raw line of a document, checked against its id field when the document has one. */
  async getLine(id: string): Promise<string | undefined> {
    await this.open();
    if (this.#all) return this.#all.get(id);
    const where = this.#locate(id);
    if (!where) return undefined;
    let handle: FileHandle;
    try {
      handle = (await this.#shard(where.path)).handle;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const line = await readLineAt(handle, where.offset);
    if (line === undefined) return undefined;
    try {
      const stored = idOf(JSON.parse(line) as Record<string, unknown>, this.#options.idField);
      return stored === undefined || stored === id ? line : undefined;
    } catch {
      return undefined;
    }
  }

  async has(id: string): Promise<boolean> {
    return (await this.getLine(id)) !== undefined;
  }

  /** Shard paths and their stamps, for fingerprints. */
  async fingerprint(): Promise<string> {
    await this.open();
    return `${this.#options.pattern}:${[...this.#shards.keys()].sort().join(',')}`;
  }

  async close(): Promise<void> {
    const handles = [...this.#shards.values()];
    this.#shards.clear();
    this.#opening = undefined;
    this.#all = undefined;
    for (const shard of handles) await (await shard.catch(() => undefined))?.handle.close();
  }
}
