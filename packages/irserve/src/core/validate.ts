import type { z } from 'zod';
import { badRequest } from '../errors.js';
import { formatIssues, formatPath } from '../util/zod-issues.js';

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
