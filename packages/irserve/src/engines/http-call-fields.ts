/**
 * The two config fields of an engine that calls a model over HTTP (an embeddings API, a TEI
 * encoder): how long one call may take and how often it is retried. The dense, sparse, PLAID and
 * back-end extras all take them, with the same bounds and defaults as the model-API engines.
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
