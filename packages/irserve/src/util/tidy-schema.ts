/** The formats JSON Schema 2020-12 defines (what validators and editors know). */
const STANDARD_FORMATS = new Set([
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'idn-email',
  'hostname',
  'idn-hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
  'uuid',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex',
]);

/**
 * Rewrites what zod emits into the standard JSON Schema spelling tools understand: zod writes a
 * base64 string as `format: "base64"`, which is no registered format (Ajv's strict mode refuses
 * it); JSON Schema says `contentEncoding: "base64"`. Zod's other own formats (`includes`,
 * `starts_with`, ...) come with a `pattern` that says the same, so they are dropped.
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
    else if (key === 'format' && !STANDARD_FORMATS.has(value as string)) continue;
    else out[key] = tidySchema(value as unknown);
  }
  return out as T;
}
