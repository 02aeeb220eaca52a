/**
 * Collection config schema (spec "Collection object"; RoutIR's ViewSpec field names so RoutIR
 * configs work unchanged). Owned by the collections module. Unknown keys are rejected.
 * See docs/collections.md for a working example of every source kind.
 */
import { z } from 'zod';

const fieldList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const textJsonlSourceSchema = z.strictObject({
  source: z.literal('text_jsonl'),
  doc_path: z.string().min(1),
  id_field: z.string().min(1).default('id'),
  content_fields: fieldList.default('text'),
  title_field: z.string().min(1).optional(),
  sep: z.string().default('\n'),
  /** `msmarco_seg`: `doc_path` is the directory of MS MARCO v2.1 segmented gzip shards. */
  offset_source: z.enum(['offsetfile', 'msmarco_seg']).default('offsetfile'),
  cache_dir: z.string().min(1).optional(),
});

export const gzipShardsSourceSchema = z.strictObject({
  source: z.literal('gzip_shards'),
  /** Path of the shard files, with `{shard}` in the file name. */
  shard_pattern: z.string().min(1).includes('{shard}', { message: 'must contain {shard}' }),
  id_field: z.string().min(1).default('id'),
  content_fields: fieldList.default('text'),
  title_field: z.string().min(1).optional(),
  sep: z.string().default('\n'),
  /** Shards prepared (decompressed) at the same time. */
  num_workers: z.number().int().min(1).max(1024).default(32),
  /** Module exporting `(id) => {shard, offset} | undefined`: `./mod.mjs` (default export) or `./mod.mjs#name`. */
  id_parser: z.string().min(1).optional(),
  force_load_all: z.boolean().default(false),
  cache_dir: z.string().min(1).optional(),
});

export const localPathSourceSchema = z
  .strictObject({
    source: z.literal('local_path'),
    path_template: z.string().min(1).includes('{id}', { message: 'must contain {id}' }).optional(),
    path_glob: z.string().min(1).includes('{id}', { message: 'must contain {id}' }).optional(),
    base_dir: z.string().min(1).optional(),
    mime: z.string().min(1).optional(),
  })
  .refine((s) => (s.path_template === undefined) !== (s.path_glob === undefined), {
    message: 'set exactly one of path_template and path_glob',
  });

const shardResolverSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('manifest'),
    path: z.string().min(1),
    id_column: z.string().min(1).default('id'),
    shard_column: z.string().min(1).default('shard'),
  }),
  z.strictObject({
    kind: z.literal('modulo'),
    n: z.number().int().min(1),
    /** Zero padding of a plain `{shard}` (a format spec such as `{shard:06d}` wins). */
    width: z.number().int().min(0).max(32).default(4),
  }),
  z.strictObject({
    kind: z.literal('substring'),
    start: z.number().int(),
    end: z.number().int().optional(),
  }),
]);

const matcherSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('glob'), pattern: z.string().min(1).includes('{id}') }),
  z.strictObject({ kind: z.literal('regex'), pattern: z.string().min(1).includes('{id}') }),
]);

export const tarSourceSchema = z.strictObject({
  source: z.literal('tar'),
  tar_template: z.string().min(1),
  shard_resolver: shardResolverSchema.optional(),
  matcher: matcherSchema,
  mime: z.string().min(1).optional(),
  cache_dir: z.string().min(1).optional(),
});

const SOURCE_KIND = {
  text_jsonl: 'text',
  gzip_shards: 'text',
  local_path: 'bytes',
  tar: 'bytes',
} as const;

export const viewSpecSchema = z
  .strictObject({
    /** Optional: inferred from the source (text_jsonl, gzip_shards: text; local_path, tar: bytes). */
    kind: z.enum(['text', 'bytes']).optional(),
    source: z.discriminatedUnion('source', [
      textJsonlSourceSchema,
      gzipShardsSourceSchema,
      localPathSourceSchema,
      tarSourceSchema,
    ]),
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
    name: z.string().min(1),
    /** RoutIR's processor name; only the content processor is supported. */
    processor: z.literal('ContentProcessor').optional(),
    views: z.record(z.string().min(1), viewSpecSchema).default({}),
    default_view: z.string().min(1).optional(),
    /** JSON object or TSV (`id<TAB>language`) file; adds `language` to documents. */
    id_to_lang_mapping: z.string().min(1).optional(),
    /** Loads every document of `msmarco_seg` / `gzip_shards` views into memory at start. */
    force_load_all_documents: z.boolean().default(false),
    cache: z.number().int().min(-1).default(256),
    cache_ttl: z.number().min(-1).default(600),
    /** Deprecated: one text view named `text` from these fields. */
    doc_path: z.string().min(1).optional(),
    id_field: z.string().min(1).default('id'),
    content_field: fieldList.optional(),
    offset_source: z.enum(['offsetfile', 'msmarco_seg']).optional(),
    /** Deprecated: a directory for the offset map (RoutIR's legacy name of `cache_dir`). */
    cache_path: z.string().min(1).optional(),
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
