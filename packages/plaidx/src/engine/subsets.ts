/**
 * `id_to_subset_mapping` for PLAIDX: irserve's TSV and JSON files, plus the pickled dict
 * (`.pkl`) RoutIR reads, through the dense package's safe pickle reader. Labels are attached
 * to passages (through their documents), so a subset filters candidates before scoring.
 */
import { readWhole, readPickle } from '@irserve/dense';
import { IrserveError, readSubsetMapping, subsetLabels, type SubsetLabels } from 'irserve/plugin';

async function readPickledMapping(path: string): Promise<Map<string, string>> {
  let value;
  try {
    value = readPickle(await readWhole(path), path);
  } catch (error) {
    throw new IrserveError('ERR_CONFIG', `id_to_subset_mapping: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!(value instanceof Map))
    throw new IrserveError(
      'ERR_CONFIG',
      `id_to_subset_mapping: ${path} must hold a pickled dict of id to label`,
    );
  const mapping = new Map<string, string>();
  for (const [id, label] of value) {
    if (typeof label !== 'string' && typeof label !== 'number')
      throw new IrserveError(
        'ERR_CONFIG',
        `id_to_subset_mapping: ${path}: the label of ${String(id)} is not a string`,
      );
    mapping.set(String(id), String(label));
  }
  return mapping;
}

/**
 * Subset labels per passage, from the documents each passage belongs to.
 *
 * @example const subsets = await passageSubsets('subsets.tsv', docOfPassage)
 */
export async function passageSubsets(
  path: string,
  docOfPassage: readonly string[],
): Promise<SubsetLabels> {
  const mapping = path.endsWith('.pkl')
    ? await readPickledMapping(path)
    : await readSubsetMapping(path);
  return subsetLabels(docOfPassage, mapping);
}

/** The passages carrying `label`, one byte each. */
export function subsetMask(subsets: SubsetLabels, label: number): Uint8Array {
  const mask = new Uint8Array(subsets.labels.length);
  for (let p = 0; p < mask.length; p++) if (subsets.labels[p] === label) mask[p] = 1;
  return mask;
}
