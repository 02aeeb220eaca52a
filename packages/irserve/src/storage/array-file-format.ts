/**
 * The layout of an array file, irserve's one format for large index data:
 *
 *   [section data, each section starting on an 8-byte boundary, little endian]
 *   [page table: CRC-32 of every page of the data, u32 each]
 *   [footer: JSON, see `Footer`]
 *   [trailer, 16 bytes: footer length (u32), CRC-32 of the footer (u32), magic "IRSARR1\n"]
 *
 * The footer comes last so that sections are written as they are produced (a builder streams
 * them without knowing their sizes first). The data is checksummed page by page, so a reader
 * that pages a file in on demand checks exactly the pages it reads, and one that reads a whole
 * section checks it as it goes: a damaged byte is an error, never a result.
 */
import type { ElementType } from './element-types.js';
import { ELEMENT_TYPES, elementBytes } from './element-types.js';

export const MAGIC = 'IRSARR1\n';
export const TRAILER_BYTES = 16;
export const FORMAT = 'irserve-array-file';
export const FORMAT_VERSION = 1;
/**
 * The default page: the unit of checksums and of paged reads. 16 KiB keeps a random read small
 * (a block of passages in a forward index is a few KiB) while the page table stays at 0.025%
 * of the data.
 */
export const DEFAULT_PAGE_SIZE = 16 * 1024;
export const MIN_PAGE_SIZE = 4096;
export const MAX_PAGE_SIZE = 1 << 24;

export interface SectionEntry {
  name: string;
  type: ElementType;
  /** Byte offset in the file (a multiple of 8). */
  offset: number;
  /** Elements. */
  length: number;
}

export interface Footer {
  format: typeof FORMAT;
  version: number;
  /** What the file holds, set by its writer (`bm25-index`, `dense-vectors`, ...). */
  kind: string;
  endian: 'le';
  pageSize: number;
  /** Bytes of section data (the pages cover [0, dataBytes)). */
  dataBytes: number;
  pageTable: { offset: number; pages: number; crc32: number };
  sections: SectionEntry[];
  /** The writer's own description (counts, settings, keys), JSON. */
  meta: unknown;
}

/**
 * Why a file cannot be used: `foreign` (not an array file, of another version or kind, or cut
 * short before its footer: a file to replace), `damaged` (a footer, page table or page that
 * does not match its checksum, or sections that do not fit: a file that must not be served),
 * `misuse` (a wrong call: an unknown section, a closed file).
 */
export type ArrayFileFault = 'foreign' | 'damaged' | 'misuse';

/** An array file that is not one, is truncated, or whose data does not match its checksums. */
export class ArrayFileError extends Error {
  readonly path: string;
  readonly fault: ArrayFileFault;
  constructor(path: string, fault: ArrayFileFault, message: string, options?: ErrorOptions) {
    super(`${path}: ${message}`, options);
    this.name = 'ArrayFileError';
    this.path = path;
    this.fault = fault;
  }
}

export const align8 = (n: number): number => Math.ceil(n / 8) * 8;

export const isPowerOfTwo = (n: number): boolean =>
  Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

/** The number of pages of `bytes` bytes of data. */
export const pageCount = (bytes: number, pageSize: number): number => Math.ceil(bytes / pageSize);

/**
 * Parses and checks a footer against the size of its file; throws ArrayFileError naming the
 * fault.
 */
export function parseFooter(path: string, text: string, fileBytes: number): Footer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArrayFileError(path, 'damaged', 'its footer is not JSON (a damaged file)');
  }
  const footer = value as Partial<Footer> | null;
  const fail = (why: string, fault: ArrayFileFault = 'damaged'): never => {
    throw new ArrayFileError(path, fault, `not a readable irserve array file: ${why}`);
  };
  if (typeof footer !== 'object' || footer === null) return fail('footer is not an object');
  if (footer.format !== FORMAT) return fail(`format ${JSON.stringify(footer.format)}`, 'foreign');
  if (footer.version !== FORMAT_VERSION)
    return fail(
      `version ${JSON.stringify(footer.version)}; this irserve reads version ${FORMAT_VERSION}`,
      'foreign',
    );
  if (footer.endian !== 'le') fail('not little endian', 'foreign');
  const { pageSize, dataBytes, pageTable, sections } = footer;
  if (!isPowerOfTwo(pageSize!) || pageSize! < MIN_PAGE_SIZE || pageSize! > MAX_PAGE_SIZE)
    fail(`page size ${pageSize}`);
  if (!Number.isSafeInteger(dataBytes) || dataBytes! < 0) fail('data size');
  if (typeof pageTable !== 'object' || pageTable === null) return fail('no page table');
  if (pageTable.pages !== pageCount(dataBytes!, pageSize!)) fail('page count');
  if (pageTable.offset !== align8(dataBytes!)) fail('page table offset');
  if (pageTable.offset + pageTable.pages * 4 > fileBytes - TRAILER_BYTES) fail('truncated');
  if (!Array.isArray(sections)) return fail('no sections');
  for (const section of sections) checkSection(section, dataBytes!, fail);
  return footer as Footer;
}

function checkSection(s: SectionEntry, dataBytes: number, fail: (why: string) => never): void {
  if (typeof s.name !== 'string' || !ELEMENT_TYPES.includes(s.type))
    fail(`section ${JSON.stringify(s.name)}`);
  if (!Number.isSafeInteger(s.offset) || s.offset < 0 || s.offset % 8 !== 0)
    fail(`section ${s.name} offset`);
  if (!Number.isSafeInteger(s.length) || s.length < 0) fail(`section ${s.name} length`);
  if (s.offset + s.length * elementBytes(s.type) > dataBytes)
    fail(`section ${s.name} ends past the data`);
}
