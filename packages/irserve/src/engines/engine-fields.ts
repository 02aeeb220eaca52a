/**
 * Config fields many engines share, defined once with their bounds and defaults: the timeout
 * and retries of a model called over HTTP (an embeddings API, a TEI encoder: the dense, sparse,
 * PLAID and back-end extras), and the batch size of a model run in process.
 */
import { z } from '../prebundled/zod.js';

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
