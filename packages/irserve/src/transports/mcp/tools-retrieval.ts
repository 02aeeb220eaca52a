/** The MCP tools that rank: `search`, `run_pipeline`, `score`, `fuse`, `decompose_query`. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../../prebundled/zod.js';
import type { AppCore } from '../../core/app-core.js';
import { decomposeQuery, fuse, score, search } from '../../core/handlers.js';
import { pipelineGuide } from './guide.js';
import { guarded, rankedResults } from './results.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const query = z.string().min(1).max(100_000).describe('the query text');
const limit = z.number().int().min(1).max(1000).default(10).describe('results to return');
const collection = z
  .string()
  .min(1)
  .optional()
  .describe('a collection to read document text from (see list_services)');
const snippetChars = z
  .number()
  .int()
  .min(0)
  .max(20_000)
  .default(300)
  .describe('characters of each document text to include (0: none)');
const result = z.object({
  id: z.string(),
  score: z.number(),
  title: z.string().optional(),
  text: z.string().optional(),
});
const ranking = { cached: z.boolean(), results: z.array(result) };

/**
 * Registers the ranking tools on `mcp`, in the order clients list them.
 *
 * @example
 * registerRetrievalTools(mcp, app.core);
 */
export function registerRetrievalTools(mcp: McpServer, core: AppCore): void {
  registerSearchTool(mcp, core);
  registerRunPipelineTool(mcp, core);
  registerScoreTool(mcp, core);
  registerFuseTool(mcp, core);
  registerDecomposeQueryTool(mcp, core);
}

function registerSearchTool(mcp: McpServer, core: AppCore): void {
  const searchNames = core.services.names('search').join(', ') || 'none';
  mcp.registerTool(
    'search',
    {
      title: 'Search',
      description: `Searches one search service and returns the best documents, best first. Search services here: ${searchNames}. Give \`collection\` to get each document's text.`,
      inputSchema: {
        service: z.string().min(1).describe('a search service name'),
        query,
        limit,
        collection,
        view: z
          .string()
          .min(1)
          .optional()
          .describe('the view of the collection (default view if absent)'),
        snippet_chars: snippetChars,
      },
      outputSchema: { service: z.string(), query: z.string(), ...ranking },
      annotations: READ_ONLY,
    },
    (args, extra) =>
      guarded(async () => {
        const answer = await search(
          core,
          { service: args.service, query: args.query, limit: args.limit },
          { signal: extra.signal },
        );
        const results = await rankedResults(
          core,
          answer.scores as Record<string, number>,
          args.limit,
          {
            collection: args.collection,
            view: args.view,
            chars: args.snippet_chars,
          },
        );
        return {
          service: args.service,
          query: args.query,
          cached: answer.cached as boolean,
          results,
        };
      }),
  );
}

function registerRunPipelineTool(mcp: McpServer, core: AppCore): void {
  mcp.registerTool(
    'run_pipeline',
    {
      title: 'Run a retrieval pipeline',
      description: `Runs a multi-stage retrieval pipeline and returns the ranked documents. ${pipelineGuide(core)} Set explain to see each stage's service, sizes and time.`,
      inputSchema: {
        pipeline: z.string().min(1).max(10_000).describe('the pipeline expression'),
        query,
        collection: collection.describe(
          'the collection rerank stages read, and where result text comes from',
        ),
        limit,
        explain: z.boolean().default(false).describe('add a per-stage trace'),
        snippet_chars: snippetChars,
      },
      outputSchema: {
        pipeline: z.string(),
        service: z.string().describe('the service of the last stage'),
        ...ranking,
        expanded_queries: z.array(z.string()).optional(),
        explain: z.record(z.string(), z.unknown()).optional(),
      },
      annotations: READ_ONLY,
    },
    (args, extra) => guarded(() => runPipeline(core, args, extra.signal)),
  );
}

/** The `run_pipeline` arguments once the input schema has applied its defaults. */
interface RunPipelineArgs {
  pipeline: string;
  query: string;
  collection?: string | undefined;
  limit: number;
  explain: boolean;
  snippet_chars: number;
}

async function runPipeline(
  core: AppCore,
  args: RunPipelineArgs,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const answer = await core.pipelines.run(
    {
      pipeline: args.pipeline,
      query: args.query,
      limit: args.limit,
      ...(args.collection !== undefined ? { collection: args.collection } : {}),
      ...(args.explain ? { explain: true } : {}),
    },
    { signal },
  );
  const results = await rankedResults(core, answer.scores as Record<string, number>, args.limit, {
    collection: args.collection,
    chars: args.snippet_chars,
  });
  return {
    pipeline: args.pipeline,
    service: answer.service as string,
    cached: answer.cached as boolean,
    results,
    ...(answer.expanded_queries ? { expanded_queries: answer.expanded_queries } : {}),
    ...(answer.explain ? { explain: withoutStageResults(answer.explain) } : {}),
  };
}

/**
 * The trace without each stage's documents: a model reads the stages' sizes and times, and a
 * search stage's thousand documents would fill its context (HTTP's `explain` keeps them).
 */
function withoutStageResults(explain: unknown): unknown {
  const trace = explain as { stages?: Record<string, unknown>[] };
  if (!Array.isArray(trace.stages)) return explain;
  return { ...trace, stages: trace.stages.map(({ results: _results, ...stage }) => stage) };
}

function registerScoreTool(mcp: McpServer, core: AppCore): void {
  mcp.registerTool(
    'score',
    {
      title: 'Score passages',
      description: `Scores passages against a query with a score service (a reranker): one score per passage, in order, higher is more relevant. Score services here: ${core.services.names('score').join(', ') || 'none'}.`,
      inputSchema: {
        service: z.string().min(1).describe('a score service name'),
        query,
        passages: z.array(z.string().max(1_000_000)).min(1).max(1000).describe('texts to score'),
      },
      outputSchema: { service: z.string(), cached: z.boolean(), scores: z.array(z.number()) },
      annotations: READ_ONLY,
    },
    (args) =>
      guarded(async () => {
        const answer = await score(core, args);
        return {
          service: args.service,
          cached: answer.cached as boolean,
          scores: answer.scores as number[],
        };
      }),
  );
}

function registerFuseTool(mcp: McpServer, core: AppCore): void {
  mcp.registerTool(
    'fuse',
    {
      title: 'Fuse rankings',
      description: `Merges several rankings (document id to score) into one with a fuse service. Fuse services here: ${core.services.names('fuse').join(', ')}.`,
      inputSchema: {
        service: z.string().min(1).default('RRF').describe('a fuse service name'),
        query: z.string().max(100_000).default(''),
        rankings: z
          .array(z.record(z.string(), z.number()))
          .min(1)
          .max(64)
          .describe('the rankings to merge: objects of document id to score'),
        limit,
      },
      outputSchema: { service: z.string(), ...ranking },
      annotations: READ_ONLY,
    },
    (args) =>
      guarded(async () => {
        const answer = await fuse(core, {
          service: args.service,
          query: args.query,
          scores: args.rankings,
        });
        const results = await rankedResults(
          core,
          answer.scores as Record<string, number>,
          args.limit,
          { chars: 0 },
        );
        return { service: args.service, cached: answer.cached as boolean, results };
      }),
  );
}

function registerDecomposeQueryTool(mcp: McpServer, core: AppCore): void {
  mcp.registerTool(
    'decompose_query',
    {
      title: 'Decompose a query',
      description: `Splits a complex query into sub-queries with a decompose_query service. Services here: ${core.services.names('decompose_query').join(', ') || 'none'}.`,
      inputSchema: {
        service: z.string().min(1).describe('a decompose_query service name'),
        query,
        limit: z.number().int().min(1).max(100).optional().describe('most sub-queries'),
      },
      outputSchema: { service: z.string(), cached: z.boolean(), queries: z.array(z.string()) },
      annotations: READ_ONLY,
    },
    (args) =>
      guarded(async () => {
        const answer = await decomposeQuery(core, args);
        return {
          service: args.service,
          cached: answer.cached as boolean,
          queries: answer.queries as string[],
        };
      }),
  );
}
