/**
 * `irserve-manifest.json`: the size and sha256 of every file irserve-build-plaid-index
 * wrote, verified when the index is opened. Indexes written by ColBERT or next-plaid have no
 * manifest; their files are checked for consistent shapes instead.
 *
 * The chunks' codes and residuals also have a CRC-32 per 16 KiB page in `irserve-pages.arr`
 * (an array file, itself listed with its sha256), so an index served from its files checks
 * each page it reads instead of hashing every file at start.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { combinedChecksum, FormatError, sha256File } from '@irserve/dense';
import { ArrayFile, ArrayFileWriter, DEFAULT_PAGE_SIZE } from 'irserve/plugin';

export const MANIFEST_FILE = 'irserve-manifest.json';
export const MANIFEST_FORMAT = 'irserve-plaid-index';
export const PAGES_FILE = 'irserve-pages.arr';
const PAGES_KIND = 'plaid-page-checksums';

interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: 1;
  files: Record<string, { bytes: number; sha256: string }>;
  checksum: string;
  /** Where the page checksums of the chunk files are (absent in indexes built before them). */
  page_checksums?: { file: string; page_size: number };
}

/** The chunk files that get page checksums. */
export const isChunkData = (name: string): boolean =>
  /^\d+\.(codes|residuals)\.(npy|pt)$/.test(name);

/** The sha256 of a file and the CRC-32 of each of its pages, in one read. */
async function digest(
  path: string,
  pageSize: number,
): Promise<{ sha256: string; crcs: Uint32Array }> {
  const hash = createHash('sha256');
  const crcs: number[] = [];
  let page: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    page = page.length === 0 ? (chunk as Buffer) : Buffer.concat([page, chunk as Buffer]);
    let at = 0;
    for (; at + pageSize <= page.length; at += pageSize)
      crcs.push(crc32(page.subarray(at, at + pageSize)));
    page = page.subarray(at);
  }
  if (page.length > 0) crcs.push(crc32(page));
  return { sha256: hash.digest('hex'), crcs: Uint32Array.from(crcs) };
}

/** Writes the page checksums and the manifest over `names` (files in `dir`). */
export async function writeManifest(dir: string, names: readonly string[]): Promise<string> {
  const files: Manifest['files'] = {};
  const pages = await ArrayFileWriter.create(join(dir, PAGES_FILE), { kind: PAGES_KIND });
  try {
    for (const name of [...names].sort()) {
      const path = join(dir, name);
      const bytes = (await stat(path)).size;
      if (!isChunkData(name)) {
        files[name] = { bytes, sha256: await sha256File(path) };
        continue;
      }
      const { sha256, crcs } = await digest(path, DEFAULT_PAGE_SIZE);
      files[name] = { bytes, sha256 };
      await pages.writeSection(name, crcs);
    }
    await pages.finish({ page_size: DEFAULT_PAGE_SIZE });
  } catch (error) {
    await pages.abort();
    throw error;
  }
  files[PAGES_FILE] = {
    bytes: (await stat(join(dir, PAGES_FILE))).size,
    sha256: await sha256File(join(dir, PAGES_FILE)),
  };
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: 1,
    files,
    checksum: combinedChecksum(files),
    page_checksums: { file: PAGES_FILE, page_size: DEFAULT_PAGE_SIZE },
  };
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
  return manifest.checksum;
}

export interface VerifyOptions {
  /** Hash the files (default true); sizes are always checked. */
  hash?: boolean;
  /**
   * The chunk files are served from the files: when the index has page checksums, their pages
   * are checked as they are read instead of the files hashed now.
   */
  paged?: boolean;
}

/** What a verified manifest offers the reader. */
export interface VerifiedManifest {
  /** The CRC-32 of each page of a chunk file, when the index has them. */
  pageCrcs: ((path: string) => Uint32Array | undefined) | undefined;
  pageSize: number | undefined;
}

/**
 * Verifies `dir` against its manifest, if it has one; resolves to undefined without one.
 *
 * @example await verifyManifest('indexes/my-plaid') // throws naming the damaged file
 */
export async function verifyManifest(
  dir: string,
  options: VerifyOptions = {},
): Promise<VerifiedManifest | undefined> {
  const manifest = await readManifest(dir);
  if (manifest === undefined) return undefined;
  for (const [name, entry] of Object.entries(manifest.files)) {
    const file = join(dir, name);
    const size = await stat(file).then(
      (s) => s.size,
      () => -1,
    );
    if (size < 0) throw new FormatError(file, 'listed in the manifest but missing');
    if (size !== entry.bytes)
      throw new FormatError(
        file,
        `${size} bytes, the manifest says ${entry.bytes} (truncated or replaced)`,
      );
    if (options.hash === false) continue;
    if (options.paged && manifest.page_checksums && isChunkData(name)) continue;
    if ((await sha256File(file)) !== entry.sha256)
      throw new FormatError(file, 'sha256 differs from the manifest (the file is damaged)');
  }
  const pages = manifest.page_checksums;
  if (pages === undefined) return { pageCrcs: undefined, pageSize: undefined };
  return { pageCrcs: await readPageCrcs(dir, pages.file), pageSize: pages.page_size };
}

async function readManifest(dir: string): Promise<Manifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new FormatError(path, 'not valid JSON');
  }
  if (
    manifest?.format !== MANIFEST_FORMAT ||
    typeof manifest.files !== 'object' ||
    manifest.files === null
  )
    throw new FormatError(path, `not an ${MANIFEST_FORMAT} manifest`);
  return manifest;
}

/** Every chunk file's page checksums (a few bytes per 16 KiB page), by path. */
async function readPageCrcs(
  dir: string,
  name: string,
): Promise<(path: string) => Uint32Array | undefined> {
  const file = await ArrayFile.open(join(dir, name), { kind: PAGES_KIND });
  const byPath = new Map<string, Uint32Array>();
  try {
    for (const section of file.footer.sections)
      byPath.set(join(dir, section.name), await file.read(section.name, 'u32'));
  } finally {
    await file.close();
  }
  return (path) => byPath.get(path);
}
