import type { z } from 'zod';
import { badRequest } from '../errors.js';

/** Renders a zod issue path as `a.b[0].c` (the request's field name). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Turns zod issues into one readable line per issue, each naming its field. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root = 'body'): string[] {
  return issues.map((issue) => {
    const where = issue.path.length > 0 ? formatPath(issue.path) : root;
    return `${where}: ${issue.message}`;
  });
}

/**
 * Parses a request body with a zod schema; a mismatch is ERR_BAD_REQUEST whose message names
 * every failing field.
 */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const lines = formatIssues(result.error.issues);
  const fields = result.error.issues.map((issue) => formatPath(issue.path));
  throw badRequest(lines.join('; '), { fields });
}
