import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { badRequest } from '../../errors.js';

/**
 * How deep arrays and objects may nest in a request body. Every request irserve serves nests a
 * few levels (a `/batch` item's `runtime_kwargs` about eight); the limit keeps the code that
 * walks a body (cache keys, relays, logs) from recursing as deep as a client likes.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The top-level field of `body` under which arrays and objects nest deeper than `limit` (the
 * body itself counts as one level), `""` when the body itself is that deep without a field
 * (a top-level array), or undefined when nothing is. Iterative: a body of any depth is walked
 * without recursion.
 *
 * @example
 * tooDeepField({ query: 'q', x: [[[1]]] }, 3); // 'x'
 */
export function tooDeepField(body: unknown, limit: number): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  if (Array.isArray(body)) return exceeds(body, 1, limit) ? '' : undefined;
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key];
    if (value !== null && typeof value === 'object' && exceeds(value, 2, limit)) return key;
  }
  return undefined;
}

/** Whether anything in `root` (itself at level `level`) lies deeper than `limit` levels. */
function exceeds(root: object, level: number, limit: number): boolean {
  const pending: object[] = [root];
  const levels: number[] = [level];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const depth = levels.pop()!;
    if (depth > limit) return true;
    const values = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (const value of values) {
      if (value !== null && typeof value === 'object') {
        pending.push(value);
        levels.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Fastify's JSON body parser (with its `__proto__` and `constructor` checks) followed by the
 * depth check: a body nested deeper than `MAX_BODY_DEPTH` is a 400 naming its field. A body of
 * at most twice the limit in characters cannot nest that deep and is not walked.
 *
 * @example
 * server.removeContentTypeParser('application/json');
 * server.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJson(server));
 */
export function depthLimitedJson(server: FastifyInstance): FastifyBodyParser<string> {
  const parse = server.getDefaultJsonParser('error', 'error');
  return (request, text, done) =>
    parse(request, text, (error: Error | null, body?: unknown) => {
      if (error) return done(error, undefined);
      const field =
        text.length > 2 * MAX_BODY_DEPTH ? tooDeepField(body, MAX_BODY_DEPTH) : undefined;
      if (field === undefined) return done(null, body);
      const where = field === '' ? 'the request body' : `field "${field}"`;
      done(
        badRequest(
          `${where} nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels, the most a request may`,
          field === '' ? {} : { fields: [field] },
        ),
        undefined,
      );
    });
}
