/**
 * Large index files: one format (array files: typed sections, page checksums, a footer) with a
 * streaming writer and a reader that loads sections whole, in chunks, or paged on demand through
 * a byte-bounded page cache. Engines and plugins use it through `irserve/plugin`.
 */
export {
  ArrayFileError,
  type ArrayFileFault,
  DEFAULT_PAGE_SIZE,
  type Footer as ArrayFileFooter,
  type SectionEntry,
} from './array-file-format.js';
export {
  BYTE_SIZE_FORMS,
  BYTE_SIZE_PATTERN,
  byteSizeOf,
  formatBytes,
  parseByteSize,
} from './byte-size.js';
export { ArrayFile, type ChunkOptions, type ReadOptions } from './array-file.js';
export {
  ArrayFileWriter,
  type ArrayFileSummary,
  type ArrayFileWriterOptions,
} from './array-file-writer.js';
export {
  MAX_ARRAY_ELEMENTS,
  MAX_BYTE_VIEW,
  assertArrayFits,
  bytesOf,
  elementBytes,
  type ArrayOf,
  type ElementType,
  type TypedArray,
} from './element-types.js';
export { PageCache, type PageCacheStats } from './page-cache.js';
export { PagedArray } from './paged-array.js';
