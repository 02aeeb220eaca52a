/**
 * A bytes view over files on disk (source `local_path`): one file per id (`path_template`) or
 * every file matching a glob (`path_glob`, sorted). Ids can never lead outside the base
 * directory: `..`, absolute paths and symlinks that point out are refused.
 */
import { readFile, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { LanguageMap } from '../language-map.js';
import { mimeFor } from '../mime.js';
import { onceAsync } from '../once.js';
import { expandGlob, globSegments } from '../paths/glob.js';
import { checkPathId, confinedRealPath, isInside, outsideError } from '../paths/safe-path.js';
import type { BytesDocument, BytesPart, BytesView } from '../types.js';

export interface LocalPathViewOptions {
  name: string;
  /** Absolute base directory; templates and globs are relative to it. */
  baseDir: string;
  /** `path_template` relative to `baseDir` (exactly one of template and glob). */
  template?: string | undefined;
  glob?: string | undefined;
  mime?: string | undefined;
  languages?: LanguageMap | undefined;
}

export class LocalPathView implements BytesView {
  readonly kind = 'bytes' as const;
  readonly name: string;
  readonly #options: LocalPathViewOptions;
  #realBase = '';
  readonly open: () => Promise<void>;

  constructor(options: LocalPathViewOptions) {
    if ((options.template === undefined) === (options.glob === undefined))
      throw new Error('set exactly one of template and glob');
    this.name = options.name;
    this.#options = options;
    this.open = onceAsync(async () => {
      this.#realBase = await realpath(options.baseDir);
      await options.languages?.open();
    });
  }

  /** The files of a document (absolute real paths); undefined when it has none. */
  async files(id: string): Promise<string[] | undefined> {
    await this.open();
    checkPathId(id);
    const { template, glob } = this.#options;
    if (template !== undefined) {
      const file = await confinedRealPath(
        this.#realBase,
        resolve(this.#realBase, template.replaceAll('{id}', id)),
        id,
      );
      return file === undefined ? undefined : [file];
    }
    const segments = globSegments(glob!, id);
    if (
      segments === 'escape' ||
      (segments === 'none' && !isInside(this.#realBase, resolve(this.#realBase, id)))
    )
      throw outsideError(id);
    if (segments === 'none') return undefined;
    const files: string[] = [];
    for (const match of await expandGlob(this.#realBase, segments)) {
      const real = await confinedRealPath(this.#realBase, match, id);
      if (real !== undefined) files.push(real);
    }
    return files.length > 0 ? files : undefined;
  }

  async has(id: string): Promise<boolean> {
    return (await this.files(id)) !== undefined;
  }

  async get(id: string): Promise<BytesDocument | undefined> {
    const files = await this.files(id);
    if (files === undefined) return undefined;
    const parts: BytesPart[] = [];
    for (const file of files) {
      try {
        parts.push({
          data: new Uint8Array(await readFile(file)),
          mime: mimeFor(file, this.#options.mime),
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EISDIR') continue;
        throw error;
      }
    }
    if (parts.length === 0) return undefined;
    const doc: BytesDocument = { id, parts };
    const language = this.#options.languages?.get(id);
    if (language !== undefined) doc.language = language;
    return doc;
  }

  async close(): Promise<void> {}
}
