/** Documents read from the start of a corpus to check its configured fields. */
const SAMPLE = 20;

/**
 * The `content_fields` entries that none of the first documents has: almost always a typo or a
 * corpus with other field names (`contents` for `text`), which would serve empty texts and make
 * every BM25 score 0 without any error.
 *
 * @example
 * await missingFields(source, ['text', 'titel']) // ['titel'] when no document has "titel"
 */
export async function missingFields(
  source: { entries?(): AsyncIterable<{ line: string }> },
  fields: readonly string[],
): Promise<{ missing: string[]; seen: string[] }> {
  if (!source.entries) return { missing: [], seen: [] };
  const seen = new Set<string>();
  let read = 0;
  for await (const { line } of source.entries()) {
    try {
      const doc: unknown = JSON.parse(line);
      if (doc && typeof doc === 'object') for (const key of Object.keys(doc)) seen.add(key);
    } catch {
      // Unparseable lines are reported where they are read.
    }
    if (++read >= SAMPLE) break;
  }
  if (read === 0) return { missing: [], seen: [] };
  return { missing: fields.filter((field) => !seen.has(field)), seen: [...seen] };
}
