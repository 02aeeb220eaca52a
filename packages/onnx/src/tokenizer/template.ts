/** Prompt templates: `{query}`, `{passage}`, `{instruction}` placeholders filled with text. */

/**
 * Replaces every `{name}` of `template` with `values[name]`; values are never re-scanned, so a
 * query that contains `{passage}` stays literal. Unknown placeholders stay as written.
 *
 * @example
 * fillTemplate('query: {query}', { query: 'cats' }) // 'query: cats'
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name]! : whole,
  );
}

/**
 * Splits `template` around the one `{slot}` whose text may be truncated, filling the other
 * placeholders: `[before, after]`. Throws when the slot is missing or appears twice.
 *
 * @example
 * splitTemplate('<q>{query}</q><d>{passage}</d>', 'passage', { query: 'cats' })
 * // ['<q>cats</q><d>', '</d>']
 */
export function splitTemplate(
  template: string,
  slot: string,
  values: Record<string, string>,
): [string, string] {
  const parts = template.split(`{${slot}}`);
  if (parts.length !== 2)
    throw new TypeError(
      `the template must contain {${slot}} exactly once: ${JSON.stringify(template)}`,
    );
  return [fillTemplate(parts[0]!, values), fillTemplate(parts[1]!, values)];
}
