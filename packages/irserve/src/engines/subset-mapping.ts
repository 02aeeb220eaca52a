/**
 * `id_to_subset_mapping`: a label per document, so a request's `subset` restricts results to
 * documents with that label. The file is TSV (`id<TAB>label` per line) or JSON (an object of
 * id to label); a `.json` name or a leading `{` selects JSON.
 */
import { readFile } from 'node:fs/promises';
import { IrserveError, badRequest } from '../errors.js';

export interface SubsetLabels {
  /** Label number per document; -1 for documents without a label. */
  labels: Int32Array;
  /** Label name to number. */
  numbers: Map<string, number>;
}

/** Reads a mapping file into id -> label. */
export async function readSubsetMapping(path: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new IrserveError(
      'ERR_CONFIG',
      `id_to_subset_mapping: cannot read ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return path.endsWith('.json') || text.trimStart().startsWith('{')
    ? parseJsonMapping(text, path)
    : parseTsvMapping(text, path);
}

function parseJsonMapping(text: string, path: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new IrserveError('ERR_CONFIG', `id_to_subset_mapping: ${path} is not valid JSON`, {
      cause: error,
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new IrserveError(
      'ERR_CONFIG',
      `id_to_subset_mapping: ${path} must hold an object of id to label`,
    );
  const mapping = new Map<string, string>();
  for (const [id, label] of Object.entries(value)) {
    if (typeof label !== 'string' && typeof label !== 'number')
      throw new IrserveError(
        'ERR_CONFIG',
        `id_to_subset_mapping: ${path}: the label of "${id}" is not a string`,
      );
    mapping.set(id, String(label));
  }
  return mapping;
}

function parseTsvMapping(text: string, path: string): Map<string, string> {
  const mapping = new Map<string, string>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const tab = line.indexOf('\t');
    if (tab <= 0 || tab === line.length - 1)
      throw new IrserveError(
        'ERR_CONFIG',
        `id_to_subset_mapping: ${path} line ${index + 1}: expected "id<TAB>label"`,
      );
    mapping.set(line.slice(0, tab), line.slice(tab + 1).trim());
  });
  return mapping;
}

/**
 * Labels per document number, from the index's document ids (an array, or any list that
 * decodes them one at a time).
 */
export function subsetLabels(
  docIds: { readonly length: number; at(index: number): string | undefined },
  mapping: Map<string, string>,
): SubsetLabels {
  const numbers = new Map<string, number>();
  for (const label of mapping.values()) if (!numbers.has(label)) numbers.set(label, numbers.size);
  const labels = new Int32Array(docIds.length).fill(-1);
  for (let doc = 0; doc < docIds.length; doc++) {
    const label = mapping.get(docIds.at(doc)!);
    if (label !== undefined) labels[doc] = numbers.get(label)!;
  }
  return { labels, numbers };
}

/**
 * The label number a request's `subset` selects, or undefined when the request has no subset.
 * A subset on a service without a mapping, or an unknown subset, is the client's error.
 */
export function requestedSubset(
  service: string,
  subsets: SubsetLabels | undefined,
  subset: unknown,
): number | undefined {
  if (subset === undefined || subset === null) return undefined;
  if (typeof subset !== 'string') throw badRequest('subset: must be a string');
  if (subsets === undefined)
    throw badRequest(`subset: service "${service}" has no id_to_subset_mapping`);
  const wanted = subsets.numbers.get(subset);
  if (wanted === undefined) {
    const known = [...subsets.numbers.keys()].slice(0, 20).join(', ');
    throw badRequest(`subset: unknown subset "${subset}" (known: ${known})`);
  }
  return wanted;
}
