/**
 * What a route tells the OpenAPI document about itself. A route opts in by passing its zod
 * schemas in the route's `config.openapi`:
 *
 * ```ts
 * server.post('/v1/rerank', { config: { openapi: {
 *   operationId: 'rerank', summary: 'Rerank documents (Cohere-style)',
 *   body: { name: 'RerankRequest', schema: rerankRequestSchema },
 *   response: { name: 'RerankResponse', schema: (responses) => responses.rerankResponseSchema },
 * } } }, handler);
 * ```
 *
 * A route registered without it still appears (method, path, an operationId made from both,
 * the error responses), with untyped bodies.
 */
import type { z } from 'zod';
import type * as responseSchemas from './response-schemas.js';

/** A zod schema under the name it gets in `components.schemas` (and in the client's types). */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

/** The module of response schemas (`response-schemas.ts`). */
export type ResponseSchemas = typeof responseSchemas;

/**
 * A response schema under its name. The schema is picked from the response schemas module,
 * which is imported only when the document is rendered: some 200 zod schemas that a server's
 * start-up does not build.
 */
export interface NamedResponse {
  name: string;
  schema: (responses: ResponseSchemas) => z.ZodType;
}

export interface RouteDoc {
  /** Unique across the document; the client's method names follow them. Default: method + path. */
  operationId?: string;
  summary?: string;
  description?: string;
  /** Groups the operation in viewers (`search`, `content`, `server`, ...). */
  tags?: string[];
  /** The JSON request body (validated with this same schema by the handler). */
  body?: NamedSchema;
  /** The 200 JSON response. */
  response?: NamedResponse;
  /** The 200 response is raw bytes (content types listed here) instead of JSON. */
  rawResponse?: string[];
  /** Query-string parameters (a zod object; each key one parameter). */
  query?: z.ZodObject;
  /** Path parameters by name with their descriptions (`:name` and the `*` of a wildcard). */
  params?: Record<string, string>;
  /** The name the OpenAPI path gives a wildcard `*` segment (default `path`). */
  wildcardName?: string;
  /** Error statuses the route can answer (default: 400, 401, 413, 500, 503 for a POST). */
  errors?: number[];
  /** Reachable without the bearer token (`/ping`). */
  public?: boolean;
  deprecated?: boolean;
  /** Leave the route out of the document. */
  hidden?: boolean;
  /** An example request body and 200 response, shown by viewers and checked by a test. */
  example?: { request?: unknown; response?: unknown };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's entry in the OpenAPI document (transports/http/openapi/route-doc.ts). */
    openapi?: RouteDoc;
  }
}
