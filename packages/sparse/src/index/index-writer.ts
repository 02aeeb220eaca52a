/**
 * Writes a sparse index directory as its parts are produced: each array file is an irserve array
 * file written section by section (so a builder streams the forward index as passages arrive and
 * the inverted lists as runs merge), the id lists are JSON arrays written id by id with the
 * offset of each, and everything goes into a temporary sibling directory that one rename
 * publishes, the manifest written last. A build that fails or is stopped removes the directory:
 * it never leaves an index that looks whole.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { ArrayFileWriter, type ElementType, type TypedArray } from 'irserve/plugin';
import { ARRAY_FILES, arrayFileName, type ArrayFile } from './files.js';
import { Growable } from './growable.js';
import {
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  MANIFEST_VERSION,
  combinedChecksum,
  type FileEntry,
  type ImpactType,
  type SparseManifest,
} from './manifest.js';

/** The kind every array file of a sparse index declares. */
export const ARRAY_KIND = 'sparse-index-array';

/** What a manifest says besides the files and their checksums. */
export type ManifestFields = Omit<
  SparseManifest,
  'format' | 'version' | 'files' | 'checksum' | 'createdAt'
>;

/**
 * @example
 * const out = await IndexWriter.create('indexes/splade', 'u16');
 * const terms = await out.array('forwardTerms'); await terms.append(chunk); ...
 * await out.finish(fields);   // or, on failure: await out.abort()
 */
export class IndexWriter {
  readonly outputDir: string;
  readonly temp: string;
  readonly impactType: ImpactType;
  readonly #arrays = new Map<string, ArrayFileWriter>();
  readonly #ids = new Map<string, IdsWriter>();
  readonly #files: Record<string, FileEntry> = {};

  private constructor(outputDir: string, temp: string, impactType: ImpactType) {
    this.outputDir = outputDir;
    this.temp = temp;
    this.impactType = impactType;
  }

  /** Checks the output (empty, or an earlier sparse index) and makes the temporary directory. */
  static async create(outputDir: string, impactType: ImpactType): Promise<IndexWriter> {
    await checkOutput(outputDir);
    await mkdir(dirname(outputDir), { recursive: true });
    const temp = join(
      dirname(outputDir),
      `.${basename(outputDir)}.partial-${randomBytes(4).toString('hex')}`,
    );
    await mkdir(temp);
    return new IndexWriter(outputDir, temp, impactType);
  }

  /** The writer of the array file of `field`, its one section begun (opened on first call). */
  async array(field: ArrayFile['field']): Promise<ArrayFileWriter> {
    const file = ARRAY_FILES.find((f) => f.field === field)!;
    const name = arrayFileName(file, this.impactType);
    let writer = this.#arrays.get(name);
    if (writer === undefined) {
      writer = await ArrayFileWriter.create(join(this.temp, name), { kind: ARRAY_KIND });
      this.#arrays.set(name, writer);
      const type: ElementType = file.kind === 'u32' ? 'u32' : this.impactType;
      await writer.beginSection(field, type);
    }
    return writer;
  }

  /** A whole array file at once. */
  async writeArray(field: ArrayFile['field'], data: TypedArray): Promise<void> {
    await (await this.array(field)).append(data);
  }

  /** The streaming writer of an id list (`passage-ids.json` and its offsets, ...). */
  ids(name: string, offsetsName: string): IdsWriter {
    let writer = this.#ids.get(name);
    if (writer === undefined) {
      writer = new IdsWriter(join(this.temp, name), offsetsName);
      this.#ids.set(name, writer);
    }
    return writer;
  }

  /** A small file written whole (`terms.json`). */
  async writeFile(name: string, data: Uint8Array): Promise<void> {
    await writeFile(join(this.temp, name), data);
    this.#files[name] = { bytes: data.byteLength, crc32: crc32(data) };
  }

  /** Ends every file, writes the manifest and publishes the directory; resolves to the manifest. */
  async finish(fields: ManifestFields): Promise<SparseManifest> {
    try {
      for (const [name, writer] of this.#arrays) {
        const summary = await writer.finish(null);
        this.#files[name] = { bytes: summary.bytes, crc32: summary.crc32 };
      }
      for (const [name, ids] of this.#ids) {
        this.#files[name] = await ids.end();
        this.#files[ids.offsetsName] = await this.#offsets(ids);
      }
      const files = Object.fromEntries(
        Object.entries(this.#files).sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      const manifest: SparseManifest = {
        format: MANIFEST_FORMAT,
        version: MANIFEST_VERSION,
        ...fields,
        files,
        checksum: combinedChecksum(files),
        createdAt: new Date().toISOString(),
      };
      await writeFile(join(this.temp, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
      await publish(this.temp, this.outputDir);
      return manifest;
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Removes everything written (harmless after `finish` published, or twice). */
  async abort(): Promise<void> {
    for (const writer of this.#arrays.values()) await writer.abort();
    for (const ids of this.#ids.values()) await ids.abort();
    await rm(this.temp, { recursive: true, force: true });
  }

  async #offsets(ids: IdsWriter): Promise<FileEntry> {
    const writer = await ArrayFileWriter.create(join(this.temp, ids.offsetsName), {
      kind: ARRAY_KIND,
    });
    await writer.writeSection('offsets', ids.offsets());
    const summary = await writer.finish(null);
    return { bytes: summary.bytes, crc32: summary.crc32 };
  }
}

/**
 * A JSON array of ids written one id at a time (as `idsJson` writes it whole: compact, one
 * literal per id), with the byte offset of each literal's opening quote and, last, the length.
 */
export class IdsWriter {
  readonly offsetsName: string;
  readonly #path: string;
  readonly #stream: WriteStream;
  readonly #offsets = new Growable(Uint32Array);
  #bytes = 0;
  #crc = 0;
  #count = 0;

  constructor(path: string, offsetsName: string) {
    this.#path = path;
    this.offsetsName = offsetsName;
    this.#stream = createWriteStream(path);
    this.#stream.on('error', () => undefined); // surfaced by `end`
    this.#write('[');
  }

  /** Appends one id (resolves when the stream can take more). */
  async push(id: string): Promise<void> {
    const literal = `${this.#count > 0 ? ',' : ''}${JSON.stringify(id)}`;
    if (this.#bytes + literal.length * 3 > 0xfffffffe)
      throw new RangeError(`${this.#path}: more than 4 GiB of ids; split the corpus into shards`);
    this.#offsets.push(this.#bytes + (this.#count > 0 ? 1 : 0));
    this.#count++;
    if (!this.#write(literal))
      await new Promise<void>((resolve) => this.#stream.once('drain', () => resolve()));
  }

  /** The offsets (one per id, then the file's length); valid after `end`. */
  offsets(): Uint32Array {
    return this.#offsets.toArray();
  }

  /** Closes the array; resolves to the file's entry. */
  async end(): Promise<FileEntry> {
    this.#write(']');
    this.#offsets.push(this.#bytes);
    await new Promise<void>((resolve, reject) => {
      this.#stream.once('error', reject);
      this.#stream.end(() => resolve());
    });
    return { bytes: this.#bytes, crc32: this.#crc >>> 0 };
  }

  async abort(): Promise<void> {
    this.#stream.destroy();
    await rm(this.#path, { force: true });
  }

  #write(text: string): boolean {
    const bytes = Buffer.from(text);
    this.#bytes += bytes.length;
    this.#crc = crc32(bytes, this.#crc);
    return this.#stream.write(bytes);
  }
}

/**
 * An existing output must be empty or an earlier sparse index (which is replaced).
 *
 * @example await checkOutput('indexes/splade'); // throws for a non-empty foreign directory
 */
export async function checkOutput(outputDir: string): Promise<void> {
  const info = await stat(outputDir).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory()) throw new Error(`output ${outputDir} exists and is not a directory`);
  const entries = await readdir(outputDir);
  if (entries.length > 0 && !entries.includes(MANIFEST_FILE))
    throw new Error(
      `output directory ${outputDir} is not empty and holds no sparse index; choose another one`,
    );
}

/** Moves the finished directory into place; an index already there is swapped out, then removed. */
async function publish(temp: string, outputDir: string): Promise<void> {
  const old = `${temp}.old`;
  const existed = await stat(outputDir).then(
    () => true,
    () => false,
  );
  if (existed) await rename(outputDir, old);
  await rename(temp, outputDir);
  if (existed) await rm(old, { recursive: true, force: true });
}
