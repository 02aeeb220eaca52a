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
 * `body` without its top-level null fields: RoutIR's clients and relays send `"subset": null`
 * (and other optional fields as null) for "not given", so null means absent here. A copy only
 * when some field is null.
 */
function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in body) {
    if (body[key] !== null) continue;
    copy ??= { ...body };
    delete copy[key];
  }
  return copy ?? body;
}

/**
 * Parses a request body with a zod schema; a mismatch is ERR_BAD_REQUEST whose message names
 * every failing field. Top-level null fields count as absent (RoutIR sends them).
 *
 * @example
 * parseRequest(searchRequestSchema, { service: 'bm25', query: 'q', subset: null });
 */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  const result = schema.safeParse(withoutNulls(body as Record<string, unknown>));
  if (result.success) return result.data;
  const lines = formatIssues(result.error.issues);
  const fields = result.error.issues.map((issue) => formatPath(issue.path));
  throw badRequest(lines.join('; '), { fields });
}
