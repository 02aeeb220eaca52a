/**
 * Rewrites what zod emits into the standard JSON Schema spelling tools understand: zod writes a
 * base64 string as `format: "base64"`, which is no registered format (Ajv's strict mode refuses
 * it); JSON Schema says `contentEncoding: "base64"`.
 *
 * @example
 * tidySchema({ type: 'string', format: 'base64' }) // { type: 'string', contentEncoding: 'base64' }
 */
export function tidySchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((item) => tidySchema(item as unknown)) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format' && value === 'base64') out.contentEncoding = 'base64';
    else out[key] = tidySchema(value as unknown);
  }
  return out as T;
}
