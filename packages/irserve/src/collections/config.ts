/**
 * Collection config schema (spec "Collection object"; RoutIR's ViewSpec field names so RoutIR
 * configs work unchanged). Owned by the collections module. Unknown keys are rejected.
 * See docs/collections.md for a working example of every source kind.
 */
import { z } from '../prebundled/zod.js';

const fieldList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const textJsonlSourceSchema = z.strictObject({
  source: z
    .literal('text_jsonl')
    .describe('Where the view reads documents: text_jsonl, gzip_shards, local_path or tar.'),
  doc_path: z.string().min(1).describe('Path of the JSONL file (relative to the config file).'),
  id_field: z.string().min(1).default('id').describe('JSON field holding the document id.'),
  content_fields: fieldList
    .default('text')
    .describe('JSON field(s) joined into the document text.'),
  title_field: z
    .string()
    .min(1)
    .optional()
    .describe('JSON field holding the title (kept apart from the text).'),
  sep: z.string().default('\n').describe('Separator between joined content fields.'),
  offset_source: z
    .enum(['offsetfile', 'msmarco_seg'])
    .default('offsetfile')
    .describe('`msmarco_seg`: `doc_path` is the directory of MS MARCO v2.1 segmented gzip shards.'),
  cache_dir: z
    .string()
    .min(1)
    .optional()
    .describe("Directory for this view's sidecars (offset maps, tar indexes)."),
});

export const gzipShardsSourceSchema = z.strictObject({
  source: z
    .literal('gzip_shards')
    .describe('Where the view reads documents: text_jsonl, gzip_shards, local_path or tar.'),
  shard_pattern: z
    .string()
    .min(1)
    .includes('{shard}', { message: 'must contain {shard}' })
    .describe('Path of the shard files, with `{shard}` in the file name.'),
  id_field: z.string().min(1).default('id').describe('JSON field holding the document id.'),
  content_fields: fieldList
    .default('text')
    .describe('JSON field(s) joined into the document text.'),
  title_field: z
    .string()
    .min(1)
    .optional()
    .describe('JSON field holding the title (kept apart from the text).'),
  sep: z.string().default('\n').describe('Separator between joined content fields.'),
  num_workers: z
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(32)
    .describe('Shards prepared (decompressed) at the same time.'),
  id_parser: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Module exporting `(id) => {shard, offset} | undefined`: `./mod.mjs` (default export) or `./mod.mjs#name`.',
    ),
  force_load_all: z.boolean().default(false).describe('Load every document into memory at start.'),
  cache_dir: z
    .string()
    .min(1)
    .optional()
    .describe("Directory for this view's sidecars (offset maps, tar indexes)."),
});

export const localPathSourceSchema = z
  .strictObject({
    source: z
      .literal('local_path')
      .describe('Where the view reads documents: text_jsonl, gzip_shards, local_path or tar.'),
    path_template: z
      .string()
      .min(1)
      .includes('{id}', { message: 'must contain {id}' })
      .optional()
      .describe('File path of a document, with {id} replaced.'),
    path_glob: z
      .string()
      .min(1)
      .includes('{id}', { message: 'must contain {id}' })
      .optional()
      .describe(
        "Glob of a document's files, with {id} replaced (several files make several parts).",
      ),
    base_dir: z
      .string()
      .min(1)
      .optional()
      .describe("Directory that ids cannot escape; default the config file's directory."),
    mime: z
      .string()
      .min(1)
      .optional()
      .describe('MIME type of every item; default guessed from the file name.'),
  })
  .refine((s) => (s.path_template === undefined) !== (s.path_glob === undefined), {
    message: 'set exactly one of path_template and path_glob',
  });

const shardResolverSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('manifest'),
    path: z.string().min(1).describe('Path of the manifest file (TSV or JSON: id to shard).'),
    id_column: z.string().min(1).default('id').describe('Manifest column holding the id.'),
    shard_column: z.string().min(1).default('shard').describe('Manifest column holding the shard.'),
  }),
  z.strictObject({
    kind: z.literal('modulo'),
    n: z.number().int().min(1).describe('Number of shards (shard = hash of the id modulo n).'),
    width: z
      .number()
      .int()
      .min(0)
      .max(32)
      .default(4)
      .describe('Zero padding of a plain `{shard}` (a format spec such as `{shard:06d}` wins).'),
  }),
  z.strictObject({
    kind: z.literal('substring'),
    start: z.number().int().describe('First character of the shard within the id.'),
    end: z
      .number()
      .int()
      .optional()
      .describe('End (exclusive) of the shard within the id; default the end of the id.'),
  }),
]);

const matcherSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('glob'),
    pattern: z.string().min(1).includes('{id}').describe('Member name pattern; {id} is replaced.'),
  }),
  z.strictObject({
    kind: z.literal('regex'),
    pattern: z.string().min(1).includes('{id}').describe('Member name pattern; {id} is replaced.'),
  }),
]);

export const tarSourceSchema = z.strictObject({
  source: z
    .literal('tar')
    .describe('Where the view reads documents: text_jsonl, gzip_shards, local_path or tar.'),
  tar_template: z.string().min(1).describe('Path of the tar file(s), with {shard} when sharded.'),
  shard_resolver: shardResolverSchema
    .optional()
    .describe('How a document id maps to its tar shard.'),
  matcher: matcherSchema.describe('Which members of the tar belong to a document.'),
  mime: z
    .string()
    .min(1)
    .optional()
    .describe('MIME type of every item; default guessed from the file name.'),
  cache_dir: z
    .string()
    .min(1)
    .optional()
    .describe("Directory for this view's sidecars (offset maps, tar indexes)."),
});

const SOURCE_KIND = {
  text_jsonl: 'text',
  gzip_shards: 'text',
  local_path: 'bytes',
  tar: 'bytes',
} as const;

export const viewSpecSchema = z
  .strictObject({
    kind: z
      .enum(['text', 'bytes'])
      .optional()
      .describe(
        'Optional: inferred from the source (text_jsonl, gzip_shards: text; local_path, tar: bytes).',
      ),
    source: z
      .discriminatedUnion('source', [
        textJsonlSourceSchema,
        gzipShardsSourceSchema,
        localPathSourceSchema,
        tarSourceSchema,
      ])
      .describe('Where the view reads documents: text_jsonl, gzip_shards, local_path or tar.'),
  })
  .superRefine((view, ctx) => {
    const expected = SOURCE_KIND[view.source.source];
    if (view.kind !== undefined && view.kind !== expected) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: `a ${view.source.source} source makes a ${expected} view, not ${view.kind}`,
      });
    }
    const source = view.source;
    if (
      source.source === 'tar' &&
      source.shard_resolver === undefined &&
      /\{shard/.test(source.tar_template)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['source', 'shard_resolver'],
        message: 'tar_template has {shard}: set shard_resolver',
      });
    }
    if (source.source === 'tar' && /\.(gz|tgz)$/i.test(source.tar_template)) {
      ctx.addIssue({
        code: 'custom',
        path: ['source', 'tar_template'],
        message: 'compressed tar shards are not supported: decompress them to .tar',
      });
    }
  });

export const collectionConfigSchema = z
  .strictObject({
    name: z.string().min(1).describe('Collection name used in requests and pipelines.'),
    processor: z
      .literal('ContentProcessor')
      .optional()
      .describe("RoutIR's processor name; only the content processor is supported."),
    views: z
      .record(z.string().min(1), viewSpecSchema)
      .default({})
      .describe(
        'Named views of the documents: text (JSONL, gzip shards) or bytes (files, tar shards).',
      ),
    default_view: z
      .string()
      .min(1)
      .optional()
      .describe('The view used when a request names none; default: the only or first view.'),
    id_to_lang_mapping: z
      .string()
      .min(1)
      .optional()
      .describe('JSON object or TSV (`id<TAB>language`) file; adds `language` to documents.'),
    force_load_all_documents: z
      .boolean()
      .default(false)
      .describe(
        'Loads every document of `msmarco_seg` / `gzip_shards` views into memory at start.',
      ),
    cache: z
      .number()
      .int()
      .min(-1)
      .default(256)
      .describe('Cache entries of looked-up documents; -1 or 0 disables it.'),
    cache_ttl: z
      .number()
      .min(-1)
      .default(600)
      .describe('Lifetime of a content cache entry in seconds; -1: no expiry.'),
    doc_path: z
      .string()
      .min(1)
      .optional()
      .describe('Deprecated: one text view named `text` from these fields.'),
    id_field: z.string().min(1).default('id').describe('JSON field holding the document id.'),
    content_field: fieldList
      .optional()
      .describe('Deprecated: the fields of the text view declared by doc_path.'),
    offset_source: z
      .enum(['offsetfile', 'msmarco_seg'])
      .optional()
      .describe(
        'offsetfile (a byte-offset map beside the corpus) or msmarco_seg (ids locate MS MARCO v2.1 segments).',
      ),
    cache_path: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Deprecated: a directory for the offset map (RoutIR's legacy name of `cache_dir`).",
      ),
  })
  .superRefine((c, ctx) => {
    const names = Object.keys(c.views);
    if (names.length > 0 && c.doc_path !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['doc_path'],
        message:
          'the deprecated doc_path cannot be combined with views: declare the view under views',
      });
    }
    if (c.doc_path === undefined) {
      for (const key of ['content_field', 'offset_source', 'cache_path'] as const) {
        if (c[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `${key} is only used with the deprecated doc_path`,
          });
      }
    }
    if (names.length === 0 && c.doc_path === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['views'],
        message: 'a collection needs at least one view: declare views (or the deprecated doc_path)',
      });
    }
    const available = names.length > 0 ? names : ['text'];
    if (c.default_view === undefined && available.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_view'],
        message: `required when there are several views (${available.join(', ')})`,
      });
    }
    if (c.default_view !== undefined && !available.includes(c.default_view)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_view'],
        message: `"${c.default_view}" is not a view of this collection (views: ${available.join(', ')})`,
      });
    }
  });

export type CollectionConfig = z.output<typeof collectionConfigSchema>;
export type ViewSpec = z.output<typeof viewSpecSchema>;
export type SourceSpec = ViewSpec['source'];
export type TextJsonlSource = z.output<typeof textJsonlSourceSchema>;
export type GzipShardsSource = z.output<typeof gzipShardsSourceSchema>;
export type LocalPathSource = z.output<typeof localPathSourceSchema>;
export type TarSource = z.output<typeof tarSourceSchema>;
