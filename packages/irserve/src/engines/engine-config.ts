/**
 * Validation of a service's engine-specific `config` object against a strict zod schema, with
 * the problems reported the way the rest of the config is: every one, each naming its field
 * (`config.k1: ...`), unknown keys with a "did you mean".
 */
import type { z } from 'zod';
import { closest } from '../util/suggest.js';
import { formatIssues } from '../util/zod-issues.js';
import { IrserveError } from '../errors.js';

/**
 * Parses `input` (undefined means `{}`); throws ERR_CONFIG listing every problem.
 *
 * @example
 * const schema = z.strictObject({ k1: z.number().default(0.9) });
 * parseEngineConfig(schema, {}).k1 // 0.9
 */
export function parseEngineConfig<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  const problems = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => {
          const hint = closest(key, Object.keys(shape));
          return `config.${key}: unknown key${hint ? ` (did you mean "${hint}"?)` : ''}`;
        })
      : formatIssues([issue], '').map((line) => `config.${line.replace(/^: /, '')}`),
  );
  throw new IrserveError('ERR_CONFIG', problems.join('; '), { details: { problems } });
}
