/**
 * The BM25 engine's `config` object (docs/bm25.md). Strict: unknown keys are errors; every
 * problem names its field (`config.k1: ...`).
 */
import { z } from '../../prebundled/zod.js';
import { parseEngineConfig } from '../engine-config.js';
import { memoryBudgetField } from '../engine-fields.js';

export const bm25ConfigSchema = z.strictObject({
  collection: z.string().min(1).describe('The collection to index.'),
  view: z
    .string()
    .min(1)
    .optional()
    .describe("Its text view; default: the collection's default view."),
  fields: z
    .array(z.enum(['title', 'text']))
    .min(1)
    .refine((fields) => new Set(fields).size === fields.length, 'fields must not repeat')
    .default(['title', 'text'])
    .describe('Parts of each document that are indexed, as one bag of words.'),
  k1: z.number().finite().min(0).default(0.9).describe('BM25 term frequency saturation.'),
  b: z
    .number()
    .finite()
    .min(0)
    .max(1)
    .default(0.4)
    .describe('BM25 length normalisation (0: none, 1: full).'),
  stemmer: z.enum(['porter', 'none']).default('porter').describe('porter (English) or none.'),
  stopwords: z
    .union([z.enum(['lucene', 'none']), z.array(z.string().min(1))])
    .default('lucene')
    .describe("`lucene` (Lucene's 33 English stop words), `none`, or a list of words."),
  index_path: z
    .string()
    .min(1)
    .optional()
    .describe('Directory of the persisted index; default `<cacheDir>/bm25`.'),
  memory_budget: memoryBudgetField(
    "Most memory the index may keep resident (bytes, or a size such as `4GiB`). An index that needs more (6 bytes a posting, 4 more for the impacts of queried terms, and its terms, norms and ids) is served from its file: the posting lists queried are kept up to this budget, the operating system's page cache does the rest. Default: no limit, all in memory.",
  ).optional(),
  id_to_subset_mapping: z
    .string()
    .min(1)
    .optional()
    .describe(
      "TSV (`id<TAB>label`) or JSON (`{'id': 'label'}`) file: a subset label per document.",
    ),
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
