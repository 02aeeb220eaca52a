/**
 * Passage id to document id, for MaxP (a document scores as its best passage). RoutIR's LSR
 * (through bsparse) treats `doc::psgN` and `doc_N` as passages of `doc`; `auto` does the same.
 * Collections whose own ids end in `_<digits>` (MS MARCO v2's `msmarco_passage_00_49`) must
 * use `none` or `colons`, or distinct documents would be merged.
 */

export const PASSAGE_ID_RULES = ['auto', 'colons', 'none'] as const;
export type PassageIdRule = (typeof PASSAGE_ID_RULES)[number];

const NUMBERED_SUFFIX = /^(.+)_\d+$/;

/**
 * The document id a passage id belongs to under `rule`.
 *
 * @example documentIdOf('D12::psg3', 'auto') // 'D12'
 * @example documentIdOf('D12_3', 'auto')     // 'D12'
 * @example documentIdOf('D12_3', 'none')     // 'D12_3'
 */
export function documentIdOf(passageId: string, rule: PassageIdRule): string {
  if (rule === 'none') return passageId;
  const colons = passageId.indexOf('::');
  if (colons > 0) return passageId.slice(0, colons);
  if (rule === 'colons') return passageId;
  return NUMBERED_SUFFIX.exec(passageId)?.[1] ?? passageId;
}
