/**
 * The files of a sparse index directory. Arrays are raw little-endian typed arrays (opened as
 * views without parsing); ids and terms are JSON arrays of strings.
 */
import type { ImpactType } from './manifest.js';
import type { SparseIndexData } from './types.js';

type ArrayField = Exclude<
  keyof SparseIndexData,
  'quantization' | 'terms' | 'blockSize' | 'impactSlice' | 'passageIds' | 'documentIds'
>;
type StringsField = 'terms' | 'passageIds' | 'documentIds';

export interface ArrayFile {
  name: string;
  field: ArrayField;
  /** `impacts` files take the index's impact type; the others are u32. */
  kind: 'u32' | 'impacts';
  /** Only in indexes built with `--impact_ordered` (manifest field `impactSlice`). */
  impactOrdered?: true;
  /**
   * Read before the index serves (a few MB at a million passages); the others, the posting
   * lists, load after it, while it answers from the files.
   */
  head?: true;
}

export const ARRAY_FILES: readonly ArrayFile[] = [
  { name: 'inverted.offsets.u32', field: 'invertedOffsets', kind: 'u32', head: true },
  { name: 'inverted.passages.u32', field: 'invertedPassages', kind: 'u32' },
  { name: 'inverted.impacts', field: 'invertedImpacts', kind: 'impacts' },
  {
    name: 'impact-ordered.passages.u32',
    field: 'impactPassages',
    kind: 'u32',
    impactOrdered: true,
  },
  { name: 'impact-ordered.impacts', field: 'impactImpacts', kind: 'impacts', impactOrdered: true },
  { name: 'forward.offsets.u32', field: 'forwardOffsets', kind: 'u32' },
  { name: 'forward.terms.u32', field: 'forwardTerms', kind: 'u32' },
  { name: 'forward.impacts', field: 'forwardImpacts', kind: 'impacts' },
  { name: 'blocks.offsets.u32', field: 'blockOffsets', kind: 'u32' },
  { name: 'blocks.ids.u32', field: 'blockIds', kind: 'u32' },
  { name: 'blocks.max', field: 'blockMax', kind: 'impacts' },
  { name: 'passage-docs.u32', field: 'passageDocs', kind: 'u32', head: true },
];

export interface StringsFile {
  name: string;
  field: StringsField;
  /** The byte offset of every string (see `id-table.ts`); absent in indexes built before it. */
  offsets?: string;
}

export const STRING_FILES: readonly StringsFile[] = [
  { name: 'terms.json', field: 'terms' },
  { name: 'passage-ids.json', field: 'passageIds', offsets: 'passage-ids.offsets.u32' },
  { name: 'document-ids.json', field: 'documentIds', offsets: 'document-ids.offsets.u32' },
];

/**
 * The array files an index holds: the impact-ordered ones only when it has those lists.
 *
 * @example arrayFilesOf(true).length // 12
 */
export function arrayFilesOf(impactOrdered: boolean): readonly ArrayFile[] {
  return impactOrdered ? ARRAY_FILES : ARRAY_FILES.filter((file) => file.impactOrdered !== true);
}

/** The file name of an array, with the impact type in it for impact arrays. */
export function arrayFileName(file: ArrayFile, impactType: ImpactType): string {
  return file.kind === 'impacts' ? `${file.name}.${impactType}` : file.name;
}

/** Bytes per element of an array file. */
export function elementBytes(file: ArrayFile, impactType: ImpactType): number {
  return file.kind === 'impacts' && impactType === 'u16' ? 2 : 4;
}
