/**
 * The special tokens a tokenizer's post-processor puts around one text (`[CLS]` ... `[SEP]`,
 * `<s>` ... `</s>`, T5's `</s>`), found once by running the processor on a probe, so that a
 * row does not go through the processor again: through `@huggingface/tokenizers` a row's ids
 * travel as strings, about 30 µs a query-length row, as long as the rest of tokenizing it.
 */

/** Ids and token types of one processed row. */
export interface ProcessedRow {
  tokens: number[];
  typeIds: number[];
}

export interface SingleTemplate {
  prefix: number[];
  prefixTypes: number[];
  suffix: number[];
  suffixTypes: number[];
  /** The token type of the text's own ids. */
  type: number;
}

/** Ids no vocabulary holds, so that they are found again in the processed probe. */
const PROBE = [2 ** 31 - 2, 2 ** 31 - 1];

/**
 * The template `process` applies to a single text, or `null` when it is not one fixed prefix
 * and suffix around the ids (then every row must go through `process`).
 *
 * @example singleTemplate((ids) => processed(ids)) // { prefix: [101], suffix: [102], ... }
 */
export function singleTemplate(process: (ids: number[]) => ProcessedRow): SingleTemplate | null {
  const probe = process([...PROBE]);
  const at = probe.tokens.indexOf(PROBE[0]!);
  if (at < 0 || probe.tokens[at + 1] !== PROBE[1] || probe.tokens.lastIndexOf(PROBE[1]!) !== at + 1)
    return null;
  const type = probe.typeIds[at] ?? 0;
  if ((probe.typeIds[at + 1] ?? 0) !== type) return null;
  const template: SingleTemplate = {
    prefix: probe.tokens.slice(0, at),
    prefixTypes: probe.typeIds.slice(0, at),
    suffix: probe.tokens.slice(at + 2),
    suffixTypes: probe.typeIds.slice(at + 2),
    type,
  };
  // The empty text must give the same prefix and suffix: the template does not depend on length.
  const empty = process([]);
  const expected = applySingleTemplate(template, []);
  const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return same(empty.tokens, expected.tokens) && same(empty.typeIds, expected.typeIds)
    ? template
    : null;
}

/**
 * `ids` with the template's special tokens around them.
 *
 * @example applySingleTemplate(template, [7592, 2088]).tokens // [101, 7592, 2088, 102]
 */
export function applySingleTemplate(
  template: SingleTemplate,
  ids: readonly number[],
): ProcessedRow {
  const tokens = [...template.prefix, ...ids, ...template.suffix];
  const typeIds = [...template.prefixTypes];
  for (let i = 0; i < ids.length; i++) typeIds.push(template.type);
  typeIds.push(...template.suffixTypes);
  return { tokens, typeIds };
}
