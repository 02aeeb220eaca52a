/**
 * Writes an index built in memory (`SparseIndexBuilder.finish()`) as a sparse index directory,
 * through the same writer as the bounded-memory builder, so both give the same bytes.
 */
import { STRING_FILES, arrayFilesOf } from './files.js';
import { idArray } from './id-table.js';
import { IndexWriter, type ManifestFields } from './index-writer.js';
import type { SparseManifest } from './manifest.js';
import type { PassageIdRule } from './passage-docs.js';
import { hasImpactOrder, type SparseIndexData } from './types.js';

export { checkOutput } from './index-writer.js';

export interface WriteIndexOptions {
  passageIds: PassageIdRule;
  /** Informative build details stored in the manifest. */
  build?: Record<string, unknown>;
}

/** What the manifest of `index` says besides its files. */
export function manifestFields(index: SparseIndexData, options: WriteIndexOptions): ManifestFields {
  return {
    quantization: index.quantization,
    impactType: index.quantization === 0 ? 'f32' : 'u16',
    vocabularySize: index.terms.length,
    passages: index.passageIds.length,
    documents: index.documentIds.length,
    postings: index.forwardTerms.length,
    blockSize: index.blockSize,
    ...(hasImpactOrder(index) ? { impactSlice: index.impactSlice } : {}),
    passageIds: options.passageIds,
    build: options.build ?? {},
  };
}

/**
 * Writes `index` to `outputDir` (replacing an earlier sparse index there; refusing any other
 * non-empty directory). Resolves to the manifest written.
 *
 * @example await writeIndex(builder.finish(), 'indexes/splade', { passageIds: 'auto' });
 */
export async function writeIndex(
  index: SparseIndexData,
  outputDir: string,
  options: WriteIndexOptions,
): Promise<SparseManifest> {
  const out = await IndexWriter.create(outputDir, index.quantization === 0 ? 'f32' : 'u16');
  try {
    for (const file of arrayFilesOf(hasImpactOrder(index)))
      await out.writeArray(file.field, index[file.field]!);
    await out.writeFile('terms.json', Buffer.from(JSON.stringify(index.terms)));
    for (const file of STRING_FILES) {
      if (file.offsets === undefined) continue;
      const ids = out.ids(file.name, file.offsets);
      for (const id of idArray(index[file.field])) await ids.push(id);
    }
  } catch (error) {
    await out.abort();
    throw error;
  }
  return out.finish(manifestFields(index, options));
}
