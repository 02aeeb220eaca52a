/**
 * Config fields many engines share, defined once with their bounds and defaults: the timeout
 * and retries of a model called over HTTP (an embeddings API, a TEI encoder: the dense, sparse,
 * PLAID and back-end extras), the batch size of a model run in process, and the memory budget
 * of an engine that serves an index larger than memory.
 */
import { z } from '../prebundled/zod.js';
import { BYTE_SIZE_FORMS, BYTE_SIZE_PATTERN } from '../storage/byte-size.js';

/**
 * `timeout` (seconds, default 60) and `retries` (default 3) described for `call`, to spread into
 * an engine's strict object.
 *
 * @example z.strictObject({ encoder_url: z.url(), ...httpCallFields('encoder call') })
 */
export function httpCallFields(call: string) {
  return {
    timeout: z
      .number()
      .positive()
      .max(3600)
      .default(60)
      .describe(`Deadline of one ${call}, in seconds.`),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe(`Retries of an ${call} after a 429, a 5xx or a broken connection.`),
  };
}

/**
 * `batch_size`: how many `items` (texts, pairs) one model run takes, 1 to 4096, default 32.
 *
 * @example z.strictObject({ batch_size: batchSizeField('Texts per `session.run`.') })
 */
export function batchSizeField(description: string) {
  return z.number().int().min(1).max(4096).default(32).describe(description);
}

/**
 * `memory_budget`: how much memory an engine's index may keep resident, as bytes or text
 * (`8GiB`, `64M`, `512MB`: see `parseByteSize`); read it with `parseByteSize`. An engine whose index needs more serves it
 * from its files through a page cache of that size.
 *
 * @example z.strictObject({ memory_budget: memoryBudgetField().optional() })
 */
export function memoryBudgetField(description = MEMORY_BUDGET_DESCRIPTION) {
  return z
    .union([z.number().int().positive(), z.string().regex(BYTE_SIZE_PATTERN, BYTE_SIZE_FORMS)])
    .describe(description);
}

const MEMORY_BUDGET_DESCRIPTION =
  "Most memory the index may keep resident (bytes, or a size such as `8GiB`): an index that needs more is served from its files, the pages read kept in a cache of this size (the operating system's page cache does the rest). Default: no limit, the index is read into memory.";
