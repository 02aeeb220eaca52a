/**
 * Collection config schema (spec "Collection object"; RoutIR's ViewSpec field names so RoutIR
 * configs work unchanged). Owned by the collections module.
 */
import { z } from 'zod';

export const textJsonlSourceSchema = z.strictObject({
  source: z.literal('text_jsonl'),
  doc_path: z.string().min(1),
  id_field: z.string().min(1).default('id'),
  content_fields: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).default('text'),
  title_field: z.string().min(1).optional(),
  sep: z.string().default('\n'),
  offset_source: z.enum(['offsetfile']).default('offsetfile'),
  cache_dir: z.string().min(1).optional(),
});

export const viewSpecSchema = z.strictObject({
  kind: z.enum(['text', 'bytes']).default('text'),
  source: z.discriminatedUnion('source', [textJsonlSourceSchema]),
});

export const collectionConfigSchema = z.strictObject({
  name: z.string().min(1),
  views: z.record(z.string().min(1), viewSpecSchema).default({}),
  default_view: z.string().min(1).optional(),
  doc_path: z.string().min(1).optional(),
  id_field: z.string().min(1).default('id'),
  content_field: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  cache: z.number().int().min(-1).default(256),
  cache_ttl: z.number().min(-1).default(600),
});

export type CollectionConfig = z.output<typeof collectionConfigSchema>;
