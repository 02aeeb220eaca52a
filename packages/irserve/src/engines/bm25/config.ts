/**
 * The BM25 engine's `config` object (docs/bm25.md). Strict: unknown keys are errors; every
 * problem names its field (`config.k1: ...`).
 */
import { z } from 'zod';
import { parseEngineConfig } from '../engine-config.js';

export const bm25ConfigSchema = z.strictObject({
  /** The collection to index. */
  collection: z.string().min(1),
  /** Its text view; default: the collection's default view. */
  view: z.string().min(1).optional(),
  /** Parts of each document that are indexed, as one bag of words. */
  fields: z
    .array(z.enum(['title', 'text']))
    .min(1)
    .refine((fields) => new Set(fields).size === fields.length, 'fields must not repeat')
    .default(['title', 'text']),
  k1: z.number().finite().min(0).default(0.9),
  b: z.number().finite().min(0).max(1).default(0.4),
  stemmer: z.enum(['porter', 'none']).default('porter'),
  /** `lucene` (Lucene's 33 English stop words), `none`, or a list of words. */
  stopwords: z.union([z.enum(['lucene', 'none']), z.array(z.string().min(1))]).default('lucene'),
  /** Directory of the persisted index; default `<cacheDir>/bm25`. */
  index_path: z.string().min(1).optional(),
  /** TSV (`id<TAB>label`) or JSON (`{"id": "label"}`) file: a subset label per document. */
  id_to_subset_mapping: z.string().min(1).optional(),
});

export type Bm25Config = z.output<typeof bm25ConfigSchema>;

/**
 * Validates a service's `config`; throws ERR_CONFIG listing every problem.
 *
 * @example
 * parseBm25Config({ collection: 'cranfield' }).k1 // 0.9
 */
export function parseBm25Config(input: unknown): Bm25Config {
  return parseEngineConfig(bm25ConfigSchema, input);
}
