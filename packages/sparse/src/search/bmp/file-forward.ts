/**
 * The forward index of an index served from its files, as the fast block-max search reads it:
 * the offsets in memory (4 bytes a passage, checked against their CRC-32 as they load), and the
 * terms and impacts of the passages a query scores read through a page cache, every page
 * checked against its CRC-32 before use (a damaged page throws `ArrayFileError`).
 */
import { PageCache, type ArrayFile } from 'irserve/plugin';
import { ARRAY_FILES, arrayFileName } from '../../index/files.js';
import type { LoadOptions } from '../../index/load-files.js';
import type { SparseManifest } from '../../index/manifest.js';
import { openArrayFile, readArray } from '../../index/read-arrays.js';
import type { Impacts } from '../../index/types.js';
import type { ForwardReader, ForwardView } from './forward-view.js';

export interface FileForward {
  read: ForwardReader;
  /** Bytes held: the offsets and the cached pages. */
  residentBytes(): number;
  close(): Promise<void>;
}

const fileName = (field: string, manifest: SparseManifest) =>
  arrayFileName(
    ARRAY_FILES.find((file) => file.field === field)!,
    manifest.impactType,
  );

/**
 * Opens the forward index of the (version 4) index in `dir`, caching up to `cacheBytes` of pages.
 *
 * @example const forward = await openFileForward(dir, manifest, 32 << 20); forward.read(0, 4)
 */
export async function openFileForward(
  dir: string,
  manifest: SparseManifest,
  cacheBytes: number,
  options: LoadOptions = {},
): Promise<FileForward> {
  const offsetsName = fileName('forwardOffsets', manifest);
  const offsets = (await readArray(dir, offsetsName, 'u32', manifest, options)) as Uint32Array;
  if (offsets.length !== manifest.passages + 1 || offsets[manifest.passages] !== manifest.postings)
    throw new Error(`${dir}: ${offsetsName} does not match the manifest's passages and postings`);
  const files: ArrayFile[] = [];
  try {
    for (const field of ['forwardTerms', 'forwardImpacts']) {
      const name = fileName(field, manifest);
      files.push(await openArrayFile(dir, name, manifest.files[name]!));
    }
  } catch (error) {
    for (const file of files) await file.close();
    throw error;
  }
  const [termsFile, impactsFile] = files as [ArrayFile, ArrayFile];
  const cache = new PageCache({ budgetBytes: cacheBytes, pageSize: termsFile.pageSize });
  const terms = termsFile.paged('forwardTerms', 'u32', cache);
  const impacts = impactsFile.paged('forwardImpacts', manifest.impactType, cache);
  const small = manifest.postings < 2 ** 31;
  const view: ForwardView = {
    offsets: small ? new Int32Array(offsets.buffer, offsets.byteOffset, offsets.length) : offsets,
    terms: new Int32Array(0),
    impacts: new Uint16Array(0),
    at: 0,
  };
  let termBuffer = new Uint32Array(0);
  let impactBuffer: Impacts = new Uint16Array(0);
  return {
    read(first, last) {
      const start = offsets[first]!;
      const end = offsets[last]!;
      if (termBuffer.length < end - start) {
        termBuffer = new Uint32Array(Math.max(end - start, 2 * termBuffer.length));
        impactBuffer =
          manifest.impactType === 'f32'
            ? new Float32Array(termBuffer.length)
            : new Uint16Array(termBuffer.length);
        view.terms = small ? new Int32Array(termBuffer.buffer) : termBuffer;
        view.impacts = impactBuffer;
      }
      terms.read(start, end, termBuffer.subarray(0, end - start));
      impacts.read(start, end, impactBuffer.subarray(0, end - start));
      view.at = start;
      return view;
    },
    residentBytes: () => offsets.byteLength + cache.stats().residentBytes,
    close: async () => {
      for (const file of files) await file.close();
    },
  };
}
