/**
 * Zod schemas of the JSON bodies irserve sends. The OpenAPI document is generated from them
 * (and from the request schemas the handlers validate with), and `@irserve/client` generates
 * its types from that document, so a field added here reaches the client's types.
 */
import { z } from '../../../prebundled/zod.js';
import { ERROR_CATALOG, type ErrorCode } from '../../../errors.js';

const ranking = z
  .record(z.string(), z.number())
  .describe('document id to score; rank by value (key order is not significant)');

const envelopeFields = {
  cached: z.boolean().describe('true when the answer came from the cache'),
  processed: z.boolean().describe('always true on a processed request (RoutIR compatibility)'),
  query: z.string().describe('the query, echoed'),
  service: z.string().describe('the service that produced the result'),
  timestamp: z.number().describe('Unix time in seconds (fractional) when the result was computed'),
};

export const searchResponseSchema = z.strictObject({ ...envelopeFields, scores: ranking });

export const scoreResponseSchema = z.strictObject({
  ...envelopeFields,
  scores: z.array(z.number()).describe('one score per passage, in request order'),
  meta: z.strictObject({ n_passages: z.int().describe('how many passages were scored') }),
});

export const fuseResponseSchema = z.strictObject({ ...envelopeFields, scores: ranking });

export const decomposeResponseSchema = z.strictObject({
  ...envelopeFields,
  queries: z.array(z.string()).describe('the sub-queries'),
});

const traceEntry = z.strictObject({
  stage: z.string().describe('the stage label'),
  service: z.string(),
  role: z.enum(['search', 'rerank', 'merge', 'expand']),
  query: z.string().describe('the query the stage ran with (a sub-query under an expander)'),
  input: z.int().describe('documents in (rerank: candidates; merge: sum over the inputs)'),
  output: z.int().describe('documents out after the %N cut (expand: sub-queries)'),
  cached: z.boolean().describe('whether the service answered from its cache'),
  ms: z.number().describe('wall time of the stage in milliseconds, content fetching included'),
  results: z
    .array(z.strictObject({ id: z.string(), score: z.number(), rank: z.int() }))
    .optional()
    .describe(
      'what a search, rerank or merge stage handed on, best first (ties by ascending id), ranks from 1',
    ),
});

export const pipelineResponseSchema = z.strictObject({
  ...envelopeFields,
  service: z.string().describe('the service of the last stage'),
  scores: ranking,
  pipeline: z.string().describe('the pipeline expression, echoed'),
  collection: z.string().optional().describe('the collection, echoed when given'),
  expanded_queries: z
    .array(z.string())
    .optional()
    .describe('the sub-queries, when a query expander ran'),
  explain: z
    .strictObject({
      plan: z.string().describe('the canonical form of the pipeline'),
      pipeline_cache: z.enum(['hit', 'miss', 'off']),
      stages: z.array(traceEntry).describe('one entry per stage run, in completion order'),
      request_id: z
        .string()
        .optional()
        .describe('the request id (x-request-id), also in the log lines of this request'),
    })
    .optional()
    .describe('present when the request asked for "explain": true'),
});

const viewKind = z.enum(['text', 'bytes']);

export const availResponseSchema = z.looseObject({
  search: z.array(z.string()).describe('search services'),
  score: z.array(z.string()).describe('score (rerank) services'),
  fuse: z.array(z.string()).describe('fusion services'),
  decompose_query: z.array(z.string()).describe('query decomposition services'),
  collection: z
    .record(
      z.string(),
      z.strictObject({
        views: z.record(z.string(), viewKind).describe('view name to kind'),
        default: z.string().nullable().describe('the view used when a request names none'),
      }),
    )
    .describe('collection name to its views'),
  content: z.array(z.string()).describe('collection names (the older RoutIR shape)'),
  pipeline_aliases: z.record(z.string(), z.string()).describe('alias name to pipeline source'),
  score_view_kinds: z.record(z.string(), viewKind).describe('score service to its input kind'),
  search_collections: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'search service to the collection it indexes, where its config names one (irserve extension)',
    ),
  batch_endpoint: z.string().optional().describe('path of POST /batch (irserve extension)'),
  grpc_port: z.int().optional().describe('the gRPC port, when gRPC is served'),
  unavailable: z
    .array(z.string())
    .optional()
    .describe(
      'listed services whose back-end is unreachable now: they answer ERR_UPSTREAM until it is back (irserve extension)',
    ),
});

export const healthResponseSchema = z.strictObject({
  status: z
    .enum(['ok', 'degraded'])
    .describe(
      "degraded while a cache store, an imported remote or an engine's back-end is unreachable",
    ),
  ready: z
    .boolean()
    .describe('whether this replica should get traffic (the HTTP status is 503 when false)'),
  lifecycle: z
    .enum(['starting', 'ready', 'draining'])
    .describe('starting until collections and engines have started; draining once close began'),
  cache_stores: z.array(
    z.strictObject({
      url: z.string().describe('the store, password removed'),
      state: z.string().describe('up, down or connecting'),
      since: z.string().describe('ISO time of the last state change'),
    }),
  ),
  server_imports: z.array(
    z.looseObject({
      endpoint: z.string(),
      state: z.string().describe('up, connecting or unreachable'),
      services: z.int().describe('services mirrored from it'),
      transport: z.string().optional(),
      last_error: z.string().optional(),
    }),
  ),
  engines: z
    .array(
      z.looseObject({
        service: z.string().describe('the service'),
        state: z.string().describe("the back-end's state: up, down or connecting"),
      }),
    )
    .optional()
    .describe('engines over an external back-end (@irserve/backends), each with its state'),
  service: z
    .strictObject({
      name: z.string(),
      available: z.boolean().describe("false while the service's back-end is unreachable"),
    })
    .optional()
    .describe('with ?service=: that service (the HTTP status is 503 when it is unavailable)'),
});

export const pingResponseSchema = z.strictObject({ status: z.literal('pong') });

export const contentResponseSchema = z.strictObject({
  collection: z.string(),
  id: z.string(),
  view: z.string().describe('the view that answered'),
  kind: viewKind,
  text: z.string().optional().describe('text views: the document text'),
  title: z.string().optional().describe('text views: the title, when the document has one'),
  language: z.string().optional().describe('when the collection maps ids to languages'),
  data: z
    .array(
      z.strictObject({
        data: z.string().describe('base64 of the part'),
        mime: z.string().describe('its MIME type'),
      }),
    )
    .optional()
    .describe('bytes views: one entry per part'),
  cached: z.boolean(),
});

export const batchResponseSchema = z.strictObject({
  responses: z
    .array(
      z.strictObject({
        status: z.int().describe('the HTTP status this call would have had alone'),
        body: z.record(z.string(), z.unknown()).describe('its response or error body'),
      }),
    )
    .describe('one per call, in request order'),
});

export const errorResponseSchema = z.looseObject({
  error: z.string().describe('a readable message naming the field or service at fault'),
  code: z
    .enum(Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]])
    .describe('stable error code (docs/errors.md)'),
});
