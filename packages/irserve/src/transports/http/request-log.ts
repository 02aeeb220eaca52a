import type { FastifyBaseLogger } from 'fastify';

/** What the one info line of an answered request says. */
export interface AnsweredRequest {
  readonly reqId: string;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly status: number;
  readonly ms: number;
}

/**
 * The one info line per answered request, written alike for Fastify's routes (an onResponse
 * hook) and the fast lane, so both paths log the same fields.
 *
 * @example
 * logAnsweredRequest(logger, { reqId, method: 'POST', url: '/search', status: 200, ms: 1.234 });
 */
export function logAnsweredRequest(logger: FastifyBaseLogger, request: AnsweredRequest): void {
  logger.info({ ...request, ms: Number(request.ms.toFixed(2)) }, 'request');
}
