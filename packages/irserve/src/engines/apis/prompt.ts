/**
 * Prompt templates with `{name}` placeholders. Filling is one pass, so a query that contains
 * `{passage}` is never expanded, and braces of other words (a JSON example in the prompt) stay.
 */

/**
 * @example
 * fillTemplate('Q: {query} ({limit})', { query: 'cats', limit: '3' }) // 'Q: cats (3)'
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? match) : match,
  );
}

/** Placeholders from `required` that `template` lacks. */
export function missingPlaceholders(template: string, required: readonly string[]): string[] {
  return required.filter((name) => !template.includes(`{${name}}`));
}
