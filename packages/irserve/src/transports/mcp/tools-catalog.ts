/** The MCP tools that describe and read: `list_services` and `get_document`. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from '../../prebundled/zod.js';
import type { BytesDocument, TextDocument } from '../../collections/types.js';
import type { AppCore } from '../../core/app-core.js';
import { type Capability } from '../../engines/contract.js';
import { toIrserveError } from '../../errors.js';
import { FUSION_DESCRIPTIONS, pipelineGuide } from './guide.js';
import { toolResult } from './results.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const LISTED: readonly Capability[] = [
  'search',
  'score',
  'fuse',
  'decompose_query',
  'embed',
  'embed_sparse',
];
const serviceEntry = z.object({
  name: z.string(),
  engine: z.string(),
  description: z.string().optional(),
  input_kind: z.string().optional(),
});

/** Service descriptions from the config (`services[].description`), by name. */
export type Descriptions = Readonly<Record<string, string>>;

function listServices(core: AppCore, descriptions: Descriptions): Record<string, unknown> {
  const listing: Record<string, unknown> = {};
  for (const role of LISTED) {
    listing[role] = core.services.names(role).map((name) => {
      const service = core.services.get(role, name);
      const description = descriptions[name] ?? FUSION_DESCRIPTIONS[name];
      return {
        name,
        engine: service.engineName,
        ...(description ? { description } : {}),
        ...(role === 'score' || role === 'search' ? { input_kind: service.inputKind } : {}),
      };
    });
  }
  listing.collections = core.collections.names().map((name) => {
    const collection = core.collections.get(name);
    return { name, views: { ...collection.viewKinds }, default_view: collection.defaultView };
  });
  listing.pipeline_aliases = core.pipelines.aliases();
  listing.pipeline_help = pipelineGuide(core);
  return listing;
}

/** A bytes document as tool content: each part an image or an embedded resource. */
function bytesResult(
  base: { collection: string; id: string; view: string; kind: string },
  doc: BytesDocument,
): CallToolResult {
  const uri = (index: number) =>
    `irserve://content/${encodeURIComponent(base.collection)}/${encodeURIComponent(base.id)}?view=${encodeURIComponent(base.view)}&part=${index}`;
  const parts = doc.parts.map((part, index) => ({
    mime: part.mime,
    bytes: part.data.byteLength,
    uri: uri(index),
  }));
  const structured = { ...base, parts };
  const blocks = doc.parts.map((part, index) => {
    const data = Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength).toString(
      'base64',
    );
    return part.mime.startsWith('image/')
      ? { type: 'image' as const, data, mimeType: part.mime }
      : {
          type: 'resource' as const,
          resource: { uri: uri(index), mimeType: part.mime, blob: data },
        };
  });
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }, ...blocks],
    structuredContent: structured,
  };
}

/** A document as tool content: text as text; bytes parts as images or embedded resources. */
async function documentResult(
  core: AppCore,
  args: { collection: string; id: string; view?: string | undefined },
): Promise<CallToolResult> {
  try {
    const found = await core.content.lookup({
      collection: args.collection,
      id: args.id,
      ...(args.view ? { view: args.view } : {}),
    });
    const base = { collection: found.collection, id: found.id, view: found.view, kind: found.kind };
    if (found.kind === 'text') {
      const doc = found.document as TextDocument;
      return toolResult({
        ...base,
        text: doc.text,
        ...(doc.title !== undefined ? { title: doc.title } : {}),
        ...(doc.language !== undefined ? { language: doc.language } : {}),
      });
    }
    return bytesResult(base, found.document as BytesDocument);
  } catch (error) {
    const known = toIrserveError(error);
    return { isError: true, content: [{ type: 'text', text: `${known.code}: ${known.message}` }] };
  }
}

/**
 * Registers the tools that describe the server and read documents on `mcp`, in the order
 * clients list them.
 *
 * @example
 * registerCatalogTools(mcp, app.core, { bm25: 'BM25 over the abstracts' });
 */
export function registerCatalogTools(
  mcp: McpServer,
  core: AppCore,
  descriptions: Descriptions,
): void {
  registerListServicesTool(mcp, core, descriptions);
  registerGetDocumentTool(mcp, core);
}

function registerListServicesTool(mcp: McpServer, core: AppCore, descriptions: Descriptions): void {
  mcp.registerTool(
    'list_services',
    {
      title: 'List services and collections',
      description:
        'Lists what this retrieval server serves: search, score (rerank), fuse, decompose_query and embedding services with their engines and descriptions, the document collections with their views, and the named pipelines. Call it first.',
      inputSchema: {},
      outputSchema: {
        search: z.array(serviceEntry),
        score: z.array(serviceEntry),
        fuse: z.array(serviceEntry),
        decompose_query: z.array(serviceEntry),
        embed: z.array(serviceEntry),
        embed_sparse: z.array(serviceEntry),
        collections: z.array(
          z.object({
            name: z.string(),
            views: z.record(z.string(), z.string()),
            default_view: z.string(),
          }),
        ),
        pipeline_aliases: z.record(z.string(), z.string()),
        pipeline_help: z.string(),
      },
      annotations: READ_ONLY,
    },
    async () => toolResult(listServices(core, descriptions)),
  );
}

function registerGetDocumentTool(mcp: McpServer, core: AppCore): void {
  mcp.registerTool(
    'get_document',
    {
      title: 'Get a document',
      description: `Reads one document of a collection by id. Text views give the text (and title); bytes views (images, video keyframes, PDFs) give each part as an image or an embedded resource with its MIME type. Collections here: ${core.collections.names().join(', ') || 'none'}.`,
      inputSchema: {
        collection: z.string().min(1).describe('the collection name'),
        id: z.string().min(1).max(4096).describe('the document id, as search results give it'),
        view: z.string().min(1).optional().describe('the view (the default view if absent)'),
      },
      outputSchema: {
        collection: z.string(),
        id: z.string(),
        view: z.string(),
        kind: z.enum(['text', 'bytes']),
        text: z.string().optional(),
        title: z.string().optional(),
        language: z.string().optional(),
        parts: z
          .array(z.object({ mime: z.string(), bytes: z.number(), uri: z.string() }))
          .optional(),
      },
      annotations: READ_ONLY,
    },
    (args) => documentResult(core, args),
  );
}
