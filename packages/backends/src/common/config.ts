/**
 * Config fields every back-end engine shares: pool size, time limits, retries, background
 * reconnection, credentials read from the environment, and the query embedder for kNN.
 */
import { httpCallFields, z } from 'irserve/plugin';

/** Pool, time limits and retries of the connection to a back-end. */
export const connectionFields = {
  pool_size: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .describe('Connections kept open to the back-end (per irserve replica).'),
  timeout: z
    .number()
    .positive()
    .max(3600)
    .default(10)
    .describe(
      'Deadline of one back-end call, in seconds; past it the request fails with ERR_UPSTREAM_TIMEOUT.',
    ),
  retries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe(
      'Retries of a call that failed on a broken connection (never of a timeout or a bad query).',
    ),
  reconnect_max_wait: z
    .number()
    .positive()
    .max(3600)
    .default(30)
    .describe(
      'Longest wait between two reconnection attempts while the back-end is down, in seconds.',
    ),
  k_scale: z
    .number()
    .finite()
    .min(1)
    .max(100)
    .default(2)
    .describe(
      'Search `ceil(limit * k_scale)` candidates for kNN (filters and duplicates eat some).',
    ),
  subset_field: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Field, column or attribute holding each document's subset label (`subset` in requests).",
    ),
};

/** How a query and a passage are wrapped before they are embedded, whoever embeds them. */
const promptFields = {
  query_prompt: z
    .string()
    .includes('{query}')
    .default('{query}')
    .describe('Template of the text embedded for a query; `{query}` is replaced.'),
  passage_prompt: z
    .string()
    .includes('{passage}')
    .default('{passage}')
    .describe('Template of the text embedded for a passage; `{passage}` is replaced.'),
};

/** An embedder service of this app (any engine with `embedBatch`), by name. */
export const embeddingServiceSchema = z.strictObject({
  service: z
    .string()
    .min(1)
    .describe('An embedder service of this config (any engine with `embedBatch`).'),
  ...promptFields,
});

/** Its own OpenAI-compatible embeddings API (TEI, vLLM, Ollama, OpenAI). */
export const embeddingApiSchema = z.strictObject({
  base_url: z
    .url({ protocol: /^https?$/ })
    .describe('API base including the version: `http://gpu-1:8080/v1`.'),
  model: z.string().min(1).describe("The API's model name."),
  api_key: z
    .string()
    .min(1)
    .optional()
    .describe('Bearer key; default: the `api_key_env` variable.'),
  api_key_env: z
    .string()
    .min(1)
    .default('OPENAI_API_KEY')
    .describe('Environment variable holding the bearer key when `api_key` is not set.'),
  dimensions: z
    .number()
    .int()
    .min(1)
    .max(65_536)
    .optional()
    .describe('Output dimensions, for models that can shorten their vectors.'),
  ...promptFields,
  ...httpCallFields('embeddings call'),
});

export const embeddingSchema = z.union([embeddingServiceSchema, embeddingApiSchema]);

export type EmbeddingSettings = z.output<typeof embeddingSchema>;

/**
 * A secret given inline or, better, through an environment variable (`password_env`). The
 * value is never logged; messages that could carry it are redacted.
 */
export function secretFrom(
  inline: string | undefined,
  envName: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (inline !== undefined) return inline;
  return envName === undefined ? undefined : env[envName] || undefined;
}
