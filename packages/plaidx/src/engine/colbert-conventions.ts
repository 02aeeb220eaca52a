/**
 * ColBERT's input and output conventions for an ONNX export, read from the folder's
 * `onnx_config.json` (docs/plaidx.md): the query and document markers, the query length and
 * `[MASK]` expansion, the document length and skip-list, and which output holds the tokens.
 */
import { IrserveError, z } from 'irserve/plugin';

export const conventionsSchema = z.object({
  output: z.string().min(1).optional(),
  query_marker: z.string().min(1).default('[unused0]'),
  document_marker: z.string().min(1).default('[unused1]'),
  query_maxlen: z.number().int().min(4).max(4096).default(32),
  doc_maxlen: z.number().int().min(4).max(100_000).default(180),
  /** Pad queries with [MASK] to query_maxlen (ColBERT's query augmentation). */
  mask_expansion: z.boolean().default(true),
  /** Let the encoder attend to the [MASK] padding (ColBERT's `attend_to_mask_tokens`). */
  attend_to_mask_tokens: z.boolean().default(false),
  /** Tokens dropped from document outputs (ColBERT: punctuation). */
  skiplist: z
    .array(z.string())
    .max(10_000)
    .default([...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']),
});

export type Conventions = z.output<typeof conventionsSchema>;

/** The special token ids a ColBERT encoder needs, by BERT's or XLM-R's names. */
export interface SpecialIds {
  cls: number;
  sep: number;
  mask: number;
  queryMarker: number;
  documentMarker: number;
  skip: Set<number>;
}

interface Vocabulary {
  tokenId(token: string): number | undefined;
}

function fail(folder: string, why: string): never {
  throw new IrserveError('ERR_CONFIG', `config.checkpoint: model folder ${folder}: ${why}`);
}

/**
 * Parses the conventions (unknown keys of onnx_config.json belong to other readers).
 *
 * @example readConventions({ query_maxlen: 32 }, 'models/colbert').query_marker // '[unused0]'
 */
export function readConventions(onnxConfig: Record<string, unknown>, folder: string): Conventions {
  const parsed = conventionsSchema.safeParse(onnxConfig);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(folder, `onnx_config.json ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Looks up the markers and specials; a missing one is a config error naming it. */
export function specialIds(
  vocabulary: Vocabulary,
  conventions: Conventions,
  folder: string,
): SpecialIds {
  const find = (what: string, ...names: string[]): number => {
    for (const name of names) {
      const id = vocabulary.tokenId(name);
      if (id !== undefined) return id;
    }
    return fail(folder, `the tokenizer has no ${what} token (${names.join(' or ')})`);
  };
  const skip = new Set<number>();
  for (const token of conventions.skiplist) {
    const id = vocabulary.tokenId(token);
    if (id !== undefined) skip.add(id);
  }
  return {
    cls: find('start', '[CLS]', '<s>'),
    sep: find('end', '[SEP]', '</s>'),
    mask: find('mask', '[MASK]', '<mask>'),
    queryMarker: find('query marker', conventions.query_marker),
    documentMarker: find('document marker', conventions.document_marker),
    skip,
  };
}
