/**
 * Plain JSONL reader (spec "Document readers"): an id -> line map built on first access and kept
 * as the `.offsetmap` sidecar; lookups read one line with a positioned read.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { buildOffsetMap } from '../offset-map/build.js';
import { readOffsetMap, writeOffsetMap, type OffsetMapStamp } from '../offset-map/codec.js';
import type { OffsetMap } from '../offset-map/offset-map.js';
import type { ReaderContext } from '../context.js';
import { sidecarPlace, writeSidecar } from '../sidecar.js';
import { createProgress } from '../../util/progress.js';
import { readExactly } from './read-line.js';

export interface JsonlReaderOptions {
  /** Absolute corpus path. */
  path: string;
  idField: string;
  /** The view's cache directory (absolute), if configured. */
  cacheDir: string | undefined;
}

/** One raw line of the corpus, in corpus order. */
export interface JsonlEntry {
  id: string;
  line: string;
}

export class JsonlReader {
  readonly path: string;
  readonly idField: string;
  readonly #options: JsonlReaderOptions;
  readonly #context: ReaderContext;
  #map: OffsetMap | undefined;
  #handle: FileHandle | undefined;
  #stamp: OffsetMapStamp | undefined;
  /** Where the sidecar was loaded from or written to. */
  sidecarPath: string | undefined;
  #opening: Promise<void> | undefined;

  constructor(options: JsonlReaderOptions, context: ReaderContext) {
    this.path = options.path;
    this.idField = options.idField;
    this.#options = options;
    this.#context = context;
  }

  /** Loads the offset map, or builds it (with progress) when missing or stale. Idempotent. */
  open(): Promise<void> {
    this.#opening ??= this.#open().catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    return this.#opening;
  }

  async #open(): Promise<void> {
    const info = await stat(this.path);
    this.#stamp = { size: info.size, mtimeMs: info.mtimeMs, idField: this.idField };
    this.#map = await this.#loadOrBuild(this.#stamp);
    this.#handle = await open(this.path, 'r');
  }

  async #loadOrBuild(stamp: OffsetMapStamp): Promise<OffsetMap> {
    const { logger, isWritable, userCacheDir, interactive } = this.#context;
    const place = await sidecarPlace(this.path, '.offsetmap', 'offsetmap', {
      cacheDir: this.#options.cacheDir,
      userCacheDir,
      isWritable,
    });
    for (const dir of place.dirs) {
      const candidate = join(dir, place.name);
      const loaded = await readOffsetMap(candidate, stamp);
      if (loaded === 'missing') continue;
      if (loaded === 'invalid') {
        logger.warn(
          { sidecar: candidate },
          'offset map is stale or damaged (header or checksum mismatch): rebuilding it',
        );
        continue;
      }
      this.sidecarPath = candidate;
      return loaded;
    }
    const progress = createProgress({
      label: `offset map ${place.name}`,
      total: stamp.size,
      interactive,
      logger,
      unit: 'bytes',
    });
    const { map, stats } = await buildOffsetMap(this.path, this.idField, progress).finally(() =>
      progress.done(),
    );
    if (stats.badLines > 0)
      logger.warn(
        { path: this.path, badLines: stats.badLines },
        'skipped lines that are not JSON objects',
      );
    if (stats.noIdLines > 0)
      logger.warn(
        { path: this.path, lines: stats.noIdLines, example: stats.noIdExample },
        `skipped lines without a "${this.idField}" field`,
      );
    if (stats.duplicates > 0) {
      logger.warn(
        { path: this.path, duplicates: stats.duplicates, example: stats.duplicateExample },
        'duplicate ids: the last occurrence wins',
      );
    }
    this.sidecarPath = await writeSidecar(place, isWritable, (handle) =>
      writeOffsetMap(handle, map, stamp),
    );
    logger.info(
      { path: this.path, sidecar: this.sidecarPath, documents: map.size },
      'offset map built',
    );
    return map;
  }

  #opened(): { map: OffsetMap; handle: FileHandle } {
    if (!this.#map || !this.#handle) throw new Error(`${this.path}: reader is not open`);
    return { map: this.#map, handle: this.#handle };
  }

  /** The raw JSON line of a document, or undefined. */
  async getLine(id: string): Promise<string | undefined> {
    await this.open();
    const { map, handle } = this.#opened();
    const found = map.find(id);
    if (!found) return undefined;
    return (await readExactly(handle, found.start, found.length)).toString('utf8');
  }

  async has(id: string): Promise<boolean> {
    await this.open();
    return this.#opened().map.find(id) !== undefined;
  }

  /** Number of distinct ids. */
  async size(): Promise<number> {
    await this.open();
    const { map } = this.#opened();
    let live = 0;
    for (let i = 0; i < map.size; i++) if (map.isLive(i)) live++;
    return live;
  }

  /** `path:size:mtime` of the corpus the map was built for. */
  async fingerprint(): Promise<string> {
    await this.open();
    return `${this.path}:${this.#stamp!.size}:${this.#stamp!.mtimeMs}`;
  }

  /** Every document line in corpus order (duplicates: only the one the map keeps). */
  async *entries(window = 4 * 1024 * 1024): AsyncIterable<JsonlEntry> {
    await this.open();
    const { map, handle } = this.#opened();
    const { lineStart, lineLength } = map.arrays;
    let buf: Buffer = Buffer.alloc(0);
    let bufStart = 0;
    for (let i = 0; i < map.size; i++) {
      if (!map.isLive(i)) continue;
      const start = lineStart[i]!;
      const length = lineLength[i]!;
      if (start < bufStart || start + length > bufStart + buf.length) {
        bufStart = start;
        buf = await readExactly(handle, start, Math.max(window, length));
      }
      yield {
        id: map.idAt(i),
        line: buf.toString('utf8', start - bufStart, start - bufStart + length),
      };
    }
  }

  async close(): Promise<void> {
    // An open still in flight would otherwise set #handle after this close and leave that file
    // handle to the garbage collector (Node's DEP0137 warning).
    const opening = this.#opening;
    this.#opening = undefined;
    await opening?.catch(() => undefined);
    const handle = this.#handle;
    this.#handle = undefined;
    this.#map = undefined;
    await handle?.close();
  }
}
