/**
 * `manifest.json` of a sparse index directory: what was built (quantisation, counts, block
 * size), and the size and CRC-32 of every data file, so a damaged or half-copied index is an
 * error at start-up, never served.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'irserve-sparse-index';
/**
 * The version written. 4: every array file is an irserve array file (storage/array-file-format:
 * a CRC-32 per 16 KiB page, so a file can be paged in and checked page by page, and no file is
 * read through one Buffer), its manifest entry the CRC-32 of its footer. 2: raw little-endian
 * arrays, a CRC-32 per file (1 had sha256, too slow to check at every start). The optional
 * impact-ordered lists (`impactSlice`) need no new version: a reader that does not know them
 * ignores their files.
 */
export const MANIFEST_VERSION = 4;
/**
 * The versions read: 4; 2, and 3, which unreleased builds wrote for indexes that always held the
 * impact-ordered lists (read as a version 2 index with them). Versions 2 and 3 load into memory
 * only (they have no page checksums to serve paged).
 */
export const READABLE_VERSIONS: readonly number[] = [2, 3, 4];

/** Whether the index's array files are irserve array files (version 4) or raw arrays. */
export function hasArrayFiles(manifest: Pick<SparseManifest, 'version'>): boolean {
  return manifest.version >= 4;
}

/** How impacts are stored: quantised integers (Anserini's impacts) or raw float32 weights. */
export type ImpactType = 'u16' | 'f32';

export interface FileEntry {
  bytes: number;
  /**
   * CRC-32 (zlib's) of the file's bytes; for an array file (version 4), of its footer, which
   * holds the CRC-32 of its page table, which holds one per page of data.
   */
  crc32: number;
}

export interface SparseManifest {
  format: typeof MANIFEST_FORMAT;
  version: number;
  /** `impact = trunc(weight * quantization)`; 0 means float impacts (no quantisation). */
  quantization: number;
  impactType: ImpactType;
  vocabularySize: number;
  passages: number;
  documents: number;
  postings: number;
  /** Passages per block of the block-max lists. */
  blockSize: number;
  /**
   * Passages per slice of the impact-ordered lists (sorted by impact within each slice); only
   * present, and the lists with it, in indexes built with `--impact_ordered`.
   */
  impactSlice?: number;
  /** How passage ids were mapped to document ids (`auto`, `none`). */
  passageIds: string;
  files: Record<string, FileEntry>;
  /** sha256 of the lines `<file> <bytes> <crc32>\n` of every data file in name order. */
  checksum: string;
  build: Record<string, unknown>;
  createdAt: string;
}

/** The one value that covers every data file (see `SparseManifest.checksum`). */
export function combinedChecksum(files: Record<string, FileEntry>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort())
    hash.update(`${name} ${files[name]!.bytes} ${files[name]!.crc32}\n`);
  return hash.digest('hex');
}

/**
 * The checksum of a data file: CRC-32, several GB/s, so an index of a million passages is
 * checked at every start-up at about four times sha256's speed (which format 1 used).
 *
 * @example fileChecksum(Buffer.from('abc')) // 891568578
 */
export function fileChecksum(data: Uint8Array): number {
  return crc32(data);
}

const COUNT_FIELDS = ['vocabularySize', 'passages', 'documents', 'postings', 'blockSize'] as const;

/**
 * Checks a manifest's shape and version; every problem names the directory.
 *
 * @example parseManifest(await readFile('idx/manifest.json', 'utf8'), 'idx').passages
 */
export function parseManifest(text: string, dir: string): SparseManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${dir}: ${MANIFEST_FILE} is not valid JSON (${(error as Error).message})`);
  }
  const m = value as Partial<SparseManifest> | null;
  const fail = (why: string): never => {
    throw new Error(`${dir}: ${MANIFEST_FILE} is not an irserve sparse index manifest: ${why}`);
  };
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return fail('not an object');
  if (m.format !== MANIFEST_FORMAT) return fail(`format is ${JSON.stringify(m.format)}`);
  if (typeof m.version !== 'number' || !READABLE_VERSIONS.includes(m.version))
    return fail(
      `version ${JSON.stringify(m.version)}; this irserve reads versions ${READABLE_VERSIONS.slice(0, -1).join(', ')} and ${READABLE_VERSIONS.at(-1)} (rebuild the index with this irserve-build-sparse-index)`,
    );
  for (const field of COUNT_FIELDS)
    if (!Number.isSafeInteger(m[field]) || m[field]! < 0) fail(`${field} is not a count`);
  if (m.blockSize! < 1) fail('blockSize is 0');
  checkImpactSlice(m, fail);
  if (typeof m.quantization !== 'number' || !(m.quantization >= 0)) fail('quantization');
  if (m.impactType !== 'u16' && m.impactType !== 'f32') fail(`impactType ${m.impactType}`);
  if ((m.quantization === 0) !== (m.impactType === 'f32'))
    fail('impactType does not match quantization');
  if (typeof m.files !== 'object' || m.files === null) return fail('files is missing');
  if (typeof m.checksum !== 'string') return fail('checksum is missing');
  if (combinedChecksum(m.files) !== m.checksum) fail('checksum does not match its file list');
  return m as SparseManifest;
}

/** `impactSlice` is optional (no impact-ordered lists) except in version 3, which always had them. */
function checkImpactSlice(m: Partial<SparseManifest>, fail: (why: string) => never): void {
  if (m.impactSlice === undefined && m.version !== 3) return;
  if (!Number.isSafeInteger(m.impactSlice) || m.impactSlice! < 0)
    fail('impactSlice is not a count');
  if (m.impactSlice! < 1) fail('impactSlice is 0');
}
