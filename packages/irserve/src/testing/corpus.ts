/**
 * Tiny corpora and the config entries that serve them: a collection over a JSONL file, and a
 * subset mapping. Engines' tests index the same documents the collection serves.
 */
import type { TempDir } from './temp-dir.js';

/** Six aeronautics abstracts, short enough to read in a test, distinct enough to rank. */
export const AERO_DOCS = [
  { id: 'd1', title: 'Jet engines', text: 'turbine compressor thrust of jet engines' },
  { id: 'd2', title: 'Boundary layers', text: 'laminar boundary layer transition on a flat plate' },
  { id: 'd3', title: 'Shock waves', text: 'supersonic shock wave reflection from a wedge' },
  { id: 'd4', title: 'Wing flutter', text: 'flutter of swept wings at transonic speed' },
  { id: 'd5', title: 'Heat transfer', text: 'heat transfer in hypersonic boundary layer flow' },
  { id: 'd6', title: 'Propellers', text: 'propeller noise and thrust at low speed' },
] as const;

/**
 * A collection entry of a config: one text view over a JSONL file.
 *
 * @example
 * textCollection('aero', dir.join('corpus.jsonl'), ['title', 'text'])
 */
export function textCollection(
  name: string,
  docPath: string,
  contentFields: readonly string[] = ['text'],
): Record<string, unknown> {
  return {
    name,
    views: {
      text: {
        kind: 'text',
        source: {
          source: 'text_jsonl',
          doc_path: docPath,
          id_field: 'id',
          content_fields: [...contentFields],
        },
      },
    },
  };
}

/**
 * Writes `docs` as `file` in `dir` and returns the collection entry that serves them.
 *
 * @example
 * const collection = await writeCollection(dir, 'aero', AERO_DOCS, ['title', 'text']);
 */
export async function writeCollection(
  dir: TempDir,
  name: string,
  docs: readonly { id: string }[],
  contentFields: readonly string[] = ['text'],
  file = 'corpus.jsonl',
): Promise<Record<string, unknown>> {
  return textCollection(name, await dir.writeJsonl(file, docs), contentFields);
}

/**
 * Writes a subset mapping (TSV: id, label), by default every other document `odd` or `even`
 * (1st, 3rd, ...: `odd`); resolves to its path.
 *
 * @example
 * await writeSubsets(dir, AERO_DOCS.map((d) => d.id)); // d1 odd, d2 even, ...
 */
export function writeSubsets(
  dir: TempDir,
  ids: readonly string[],
  labelOf: (index: number) => string = (i) => (i % 2 === 0 ? 'odd' : 'even'),
  file = 'subsets.tsv',
): Promise<string> {
  return dir.write(file, ids.map((id, i) => `${id}\t${labelOf(i)}`).join('\n'));
}
