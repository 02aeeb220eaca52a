/**
 * The fast lane: `POST /search`, `/pipeline` and the other service calls (`/score`, `/fuse`,
 * `/decompose_query`, `/batch`, RoutIR's `/query`) answered on node:http itself, before Fastify
 * sees them. They carry nearly all of a retrieval server's traffic, and in front of a back-end
 * every microsecond of handling sits in series with the back-end's round trip.
 * Skipping Fastify's request and reply objects, hook runners, content-type parser and reply
 * pipeline took a median 0.09 ms (up to 0.39; once 0.07 ms worse, in ten runs) off the added p50
 * of a pipeline over HTTP with one request in flight in front of PostgreSQL or Sphinx, and
 * 0.06-0.21 ms off irserve's CPU a query at 8 in flight in front of PostgreSQL (bench/README.md,
 * "Eleventh pass"). Right after a wait on a back-end the code that runs has gone cold, so every
 * layer left out counts for more than it does when warm.
 *
 * The answer is the one Fastify gives: the same handlers, JSON parser (Fastify's own, with its
 * prototype-poisoning checks), serializer, request id, error answers, request log line and
 * metrics. Anything out of the ordinary is left to Fastify before a byte of the body is read: a
 * missing or wrong token, another content type or encoding, a body without a length or over the
 * limit, a query string or a trailing slash, a server that is closing.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppCore } from '../../core/app-core.js';
import { runBatch } from '../../core/batch.js';
import { decomposeQuery, fuse, score, search } from '../../core/handlers.js';
import { REQUEST_ID_HEADER, acceptRequestId } from '../../core/request-id.js';
import type { CallOptions } from '../../registry/types.js';
import { rawCallOptions } from './call-options.js';
import { errorAnswer } from './errors.js';
import { logAnsweredRequest } from './request-log.js';
import type { RequestObserver } from './request-metrics.js';

export interface FastLaneOptions {
  readonly core: AppCore;
  readonly logger: FastifyBaseLogger;
  readonly bodyLimit: number;
  /** The bearer check when the server has an API key. */
  readonly bearer: ((header: string | undefined) => boolean) | undefined;
  /** Parses a JSON body as Fastify does, throwing Fastify's error. */
  readonly parseJson: (text: string) => unknown;
  readonly serialize: (payload: unknown) => string;
  readonly observe: RequestObserver | undefined;
  /** Whether every answered request gets its info line. */
  readonly logRequests: boolean;
  readonly closing: () => boolean;
}

/** Fastify's own JSON body parser (prototype-poisoning checks included) as a function. */
function jsonParserOf(server: FastifyInstance): (text: string) => unknown {
  const parser = server.getDefaultJsonParser('error', 'error');
  return (text) => {
    let parsed: unknown;
    let failure: unknown;
    // Synchronous: the default parser calls `done` before it returns.
    void parser(undefined as never, text, (error: unknown, value: unknown) => {
      failure = error;
      parsed = value;
    });
    if (failure) throw failure as Error;
    return parsed;
  };
}

/**
 * Puts the fast lane in front of Fastify's request listener on the main server.
 * Fastify's other listeners and the servers it adds for more addresses are left as they are.
 */
export function openFastLane(
  server: FastifyInstance,
  options: Omit<FastLaneOptions, 'parseJson'>,
): void {
  const lane = createFastLane({ ...options, parseJson: jsonParserOf(server) });
  const raw = server.server;
  const listeners = raw.listeners('request') as ((...args: unknown[]) => void)[];
  if (listeners.length !== 1) return;
  const fastify = listeners[0]!;
  raw.removeListener('request', fastify);
  raw.on(
    'request',
    function laneFirst(this: unknown, request: IncomingMessage, response: ServerResponse) {
      if (!lane(request, response)) fastify.call(this, request, response);
    },
  );
}

type Handler = (core: AppCore, body: unknown, options: CallOptions) => unknown;

/**
 * The routes of the lane, by exact path: every service call, `/batch` (what a federation front
 * sends its remotes) and `/pipeline`, with the handlers their Fastify routes call.
 */
const ROUTES: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['/search', search],
  ['/query', search],
  ['/score', score],
  ['/fuse', fuse],
  ['/decompose_query', decomposeQuery],
  ['/batch', runBatch],
  ['/pipeline', (core, body, options) => core.pipelines.run(body, options)],
]);

const JSON_TYPE = /^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A request listener that takes the requests it can answer (returning true) and leaves every
 * other to the caller (false), untouched.
 *
 * @example
 * const lane = createFastLane(options);
 * server.on('request', (req, res) => lane(req, res) || fastifyHandler(req, res));
 */
export function createFastLane(
  options: FastLaneOptions,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const handler = ROUTES.get(request.url ?? '');
    if (handler === undefined || !eligible(request.headers, options)) return false;
    const started = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString();
      answer(options, handler, request, response, text, started);
    });
    return true;
  };
}

/** Whether the request is one the lane answers exactly as Fastify would. */
function eligible(headers: IncomingHttpHeaders, options: FastLaneOptions): boolean {
  const type = headers['content-type'];
  if (type === undefined || !JSON_TYPE.test(type)) return false;
  const length = headers['content-length'];
  if (length === undefined || !/^\d{1,12}$/.test(length)) return false;
  const bytes = Number(length);
  if (bytes === 0 || bytes > options.bodyLimit) return false;
  if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined)
    return false;
  if (options.bearer && !options.bearer(headers.authorization)) return false;
  return !options.closing();
}

/** Runs the route's handler on the body and writes its answer, or the error's. */
function answer(
  options: FastLaneOptions,
  handler: Handler,
  request: IncomingMessage,
  response: ServerResponse,
  text: string,
  started: number,
): void {
  const id = acceptRequestId(request.headers[REQUEST_ID_HEADER]);
  let body: unknown;
  const reply = (status: number, payload: unknown, headers: Readonly<Record<string, string>>) => {
    write(response, status, options.serialize(payload), headers);
    done(options, request, body, status, started, id);
  };
  const fail = (error: unknown) => {
    const { mapped, headers, body: payload } = errorAnswer(error, options.logger, id);
    guarded(response, () => reply(mapped.httpStatus, payload, headers));
  };
  // A value that does not serialize is the handler's failure, answered like any other.
  const succeed = (value: unknown) =>
    guarded(response, () => reply(200, value, { [REQUEST_ID_HEADER]: id }), fail);
  let result: unknown;
  try {
    body = options.parseJson(text);
    result = handler(options.core, body, rawCallOptions(request.headers, id, response));
  } catch (error) {
    return fail(error);
  }
  if (isThenable(result)) result.then(succeed, fail);
  else succeed(result);
}

/**
 * Runs `work`, which writes the answer; if it throws before writing, `orElse` answers instead,
 * and otherwise the connection is dropped. Never throws: this runs in the request's `end`
 * listener or a promise reaction, where a throw would take the process down.
 */
function guarded(
  response: ServerResponse,
  work: () => void,
  orElse?: (error: unknown) => void,
): void {
  try {
    work();
  } catch (error) {
    if (orElse && !response.headersSent) guarded(response, () => orElse(error));
    else response.destroy();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function write(
  response: ServerResponse,
  status: number,
  json: string,
  headers: Readonly<Record<string, string>>,
): void {
  response.writeHead(status, {
    ...headers,
    'content-type': JSON_CONTENT_TYPE,
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}

/** The request's log line and metrics, as Fastify's onResponse hooks write them. */
function done(
  options: FastLaneOptions,
  request: IncomingMessage,
  body: unknown,
  status: number,
  started: number,
  id: string,
): void {
  const ms = performance.now() - started;
  options.observe?.(request.url!, body, undefined, status, ms / 1000);
  if (options.logRequests)
    logAnsweredRequest(options.logger, {
      reqId: id,
      method: request.method,
      url: request.url,
      status,
      ms,
    });
}
