/**
 * The output directory of a build: data files are written (and listed with their size and
 * sha256) as the build goes; the manifest comes last, so a directory without one is never
 * taken for an index. A failed build removes what it wrote, scratch files included.
 */
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, sha256File, type FileEntry } from '../vector-index/manifest.js';
import { writeManifest, type ManifestFields } from '../vector-index/storage.js';
import type { Manifest } from '../vector-index/manifest.js';
import { pageBytesFor, pageChecksumsFile } from '../vector-index/page-checksums.js';
import { DataFileWriter } from './data-file.js';

/** The build's scratch folder inside the output directory (spilled runs). */
export const SCRATCH_DIR = '.irserve-build';

export class IndexOutput {
  readonly dir: string;
  readonly files: Record<string, FileEntry> = {};
  readonly #created = new Set<string>();

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** Creates `dir` if needed; removes an earlier manifest and scratch (a failed build's). */
  static async prepare(dir: string): Promise<IndexOutput> {
    const info = await stat(dir).catch(() => undefined);
    if (info && !info.isDirectory()) throw new Error(`${dir} exists and is not a directory`);
    await mkdir(dir, { recursive: true });
    await rm(join(dir, MANIFEST_FILE), { force: true });
    await rm(join(dir, SCRATCH_DIR), { recursive: true, force: true });
    return new IndexOutput(dir);
  }

  /** The scratch folder, created on first use. */
  async scratch(): Promise<string> {
    const path = join(this.dir, SCRATCH_DIR);
    await mkdir(path, { recursive: true });
    return path;
  }

  /**
   * A writer for the data file `name`; `close` it with {@link IndexOutput.done}. A rows file
   * (`rowBytes` given) also gets its page checksums (page-checksums.ts).
   */
  async writer(name: string, { rowBytes }: { rowBytes?: number } = {}): Promise<DataFileWriter> {
    this.#created.add(name);
    const pageBytes = rowBytes === undefined ? undefined : pageBytesFor(rowBytes);
    return DataFileWriter.create(join(this.dir, name), { pageBytes });
  }

  /** Closes `writer` and lists its file (and writes its page checksums, when it took them). */
  async done(name: string, writer: DataFileWriter): Promise<void> {
    const { pages, ...entry } = await writer.close();
    this.files[name] = pages ? { ...entry, pageBytes: pages.pageBytes } : entry;
    if (pages) await this.whole(pageChecksumsFile(name), pages.crcs);
  }

  /** Writes a whole (small) data file. */
  async whole(name: string, data: ArrayBufferView): Promise<void> {
    const writer = await this.writer(name);
    await writer.write(data);
    await this.done(name, writer);
  }

  /** The path for a file written by others (usearch); `listed` hashes it. */
  claim(name: string): string {
    this.#created.add(name);
    return join(this.dir, name);
  }

  async listed(name: string): Promise<void> {
    const path = join(this.dir, name);
    this.files[name] = { bytes: (await stat(path)).size, sha256: await sha256File(path) };
  }

  /** Writes the manifest over the listed files and removes the scratch folder. */
  async finish(fields: Omit<ManifestFields, 'files'>): Promise<Manifest> {
    await rm(join(this.dir, SCRATCH_DIR), { recursive: true, force: true });
    return writeManifest(this.dir, { ...fields, files: this.files });
  }

  /** Removes everything this build wrote (the directory too, when it is left empty). */
  async discard(): Promise<void> {
    await rm(join(this.dir, SCRATCH_DIR), { recursive: true, force: true });
    for (const name of this.#created) await rm(join(this.dir, name), { force: true });
    const left = await readdir(this.dir).catch(() => ['?']);
    if (left.length === 0) await rm(this.dir, { recursive: true, force: true });
  }

  /** Bytes of the listed files. */
  get bytes(): number {
    return Object.values(this.files).reduce((sum, file) => sum + file.bytes, 0);
  }
}
