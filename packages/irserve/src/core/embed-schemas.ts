/**
 * The request fields every embedding route shares (irserve's `/embed`, OpenAI's
 * `/v1/embeddings`, TEI's `/embed`): the texts and the vector encoding, with one set of limits
 * and messages.
 */
import { z } from '../prebundled/zod.js';
import { MAX_EMBED_INPUTS } from './embed.js';

const LIST_OR_TEXT = 'must be a string or an array of strings';

/**
 * One text, or a non-empty list of at most MAX_EMBED_INPUTS texts of at most 1,000,000
 * characters each. An empty or blank text is refused on every embedding route (OpenAI refuses
 * an empty one too): there is nothing to embed (docs/errors.md, "Empty queries").
 *
 * @example
 * z.looseObject({ input: embedInputsSchema() });
 */
export function embedInputsSchema() {
  const text = z
    .string({ error: LIST_OR_TEXT })
    .regex(/\S/, 'is empty or blank: there is nothing to embed')
    .max(1_000_000, 'is too long (at most 1,000,000 characters)');
  return z.union(
    [
      text,
      z
        .array(text, { error: LIST_OR_TEXT })
        .min(1, 'must not be empty')
        .max(MAX_EMBED_INPUTS, `has too many items (at most ${MAX_EMBED_INPUTS})`),
    ],
    { error: LIST_OR_TEXT },
  );
}

/** `float` (lists of numbers) or `base64` (little-endian float32 bytes). */
export const encodingFormatSchema = z.enum(['float', 'base64'], {
  error: 'must be "float" or "base64"',
});
