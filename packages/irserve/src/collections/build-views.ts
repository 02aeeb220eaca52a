/**
 * Turns one collection's config into views: the deprecated fields become a view named `text`,
 * relative paths resolve against the config file's directory, and views over the same JSONL
 * file and id field share one reader (one offset map).
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type {
  CollectionConfig,
  LocalPathSource,
  SourceSpec,
  TarSource,
  ViewSpec,
} from './config.js';
import type { ReaderContext } from './context.js';
import { LanguageMap } from './language-map.js';
import { isInside } from './paths/safe-path.js';
import { defaultIdParser, loadIdParser } from './readers/gzip-id.js';
import { GzipShardReader } from './readers/gzip-shards.js';
import { JsonlReader } from './readers/jsonl-reader.js';
import { createShardResolver } from './tar/shard-resolver.js';
import { checkShardTemplate } from './tar/shard-template.js';
import type { View } from './types.js';
import { LineTextView, type LineSource } from './views/line-text-view.js';
import { LocalPathView } from './views/local-path-view.js';
import { TarView } from './views/tar-view.js';

export interface BuildContext extends ReaderContext {
  /** Directory that relative config paths resolve against. */
  baseDir: string;
  /** Readers shared between views, keyed by real-ish path and id field. */
  readers: Map<string, LineSource>;
}

const MSMARCO_SHARD = 'msmarco_v2.1_doc_segmented_{shard}.json.gz';

/** The declared views, or the one view `text` derived from the deprecated fields. */
export function declaredViews(config: CollectionConfig): Record<string, ViewSpec> {
  if (Object.keys(config.views).length > 0 || config.doc_path === undefined) return config.views;
  const source = {
    source: 'text_jsonl' as const,
    doc_path: config.doc_path,
    id_field: config.id_field,
    content_fields: config.content_field ?? 'text',
    sep: '\n',
    offset_source: config.offset_source ?? 'offsetfile',
    ...(config.cache_path !== undefined ? { cache_dir: config.cache_path } : {}),
  };
  return { text: { kind: 'text', source } };
}

function textFields(source: {
  content_fields: string | string[];
  sep: string;
  title_field?: string | undefined;
}) {
  const contentFields =
    typeof source.content_fields === 'string' ? [source.content_fields] : source.content_fields;
  return { contentFields, sep: source.sep, titleField: source.title_field ?? 'title' };
}

function lineSource(
  source: Extract<SourceSpec, { source: 'text_jsonl' | 'gzip_shards' }>,
  config: CollectionConfig,
  ctx: BuildContext,
): LineSource {
  const at = (p: string | undefined) => (p === undefined ? undefined : resolve(ctx.baseDir, p));
  const gzip = source.source === 'gzip_shards' || source.offset_source === 'msmarco_seg';
  const pattern =
    source.source === 'gzip_shards'
      ? at(source.shard_pattern)!
      : gzip
        ? resolve(ctx.baseDir, source.doc_path, MSMARCO_SHARD)
        : at(source.doc_path)!;
  const key = `${gzip ? 'gz' : 'jsonl'}\0${pattern}\0${source.id_field}`;
  const existing = ctx.readers.get(key);
  if (existing) return existing;
  const reader = newLineReader(source, config, ctx, {
    pattern,
    gzip,
    cacheDir: at(source.cache_dir),
  });
  ctx.readers.set(key, reader);
  return reader;
}

/** The reader of a line source: gzip shards (configured, or MS MARCO's segments) or a JSONL file. */
function newLineReader(
  source: Extract<SourceSpec, { source: 'text_jsonl' | 'gzip_shards' }>,
  config: CollectionConfig,
  ctx: BuildContext,
  where: { pattern: string; gzip: boolean; cacheDir: string | undefined },
): LineSource {
  const { pattern, cacheDir } = where;
  if (source.source === 'gzip_shards') {
    const parser = source.id_parser;
    return new GzipShardReader(
      {
        pattern,
        idField: source.id_field,
        numWorkers: source.num_workers,
        forceLoadAll: source.force_load_all || config.force_load_all_documents,
        cacheDir,
        loadParser: async () => (parser ? loadIdParser(parser, ctx.baseDir) : defaultIdParser),
      },
      ctx,
    );
  }
  if (where.gzip) {
    const idField = source.id_field === 'id' ? 'docid' : source.id_field;
    return new GzipShardReader(
      {
        pattern,
        idField,
        numWorkers: 32,
        forceLoadAll: config.force_load_all_documents,
        cacheDir,
        loadParser: async () => defaultIdParser,
      },
      ctx,
    );
  }
  return new JsonlReader({ path: pattern, idField: source.id_field, cacheDir }, ctx);
}

/** Base directory and a template relative to it; without `base_dir`, the template's fixed directory. */
function localPlacement(
  source: LocalPathSource,
  baseDir: string,
): { base: string; pattern: string } {
  const pattern = (source.path_template ?? source.path_glob)!;
  const base = source.base_dir !== undefined ? resolve(baseDir, source.base_dir) : undefined;
  const absolute = resolve(base ?? baseDir, pattern);
  if (base !== undefined) {
    if (!isInside(base, absolute))
      throw new Error(`the path pattern ${pattern} is not inside base_dir ${base}`);
    return { base, pattern: relative(base, absolute) };
  }
  const special = absolute.search(source.path_glob !== undefined ? /\{id\}|[*?[]/ : /\{id\}/);
  const head = absolute.slice(0, special);
  const fixed = head.endsWith(sep) ? head.slice(0, -1) || sep : dirname(head);
  return { base: fixed, pattern: relative(fixed, absolute) };
}

function tarView(
  name: string,
  source: TarSource,
  languages: LanguageMap | undefined,
  ctx: BuildContext,
): View {
  checkShardTemplate(source.tar_template);
  const resolver = source.shard_resolver
    ? createShardResolver(source.shard_resolver, (p) => resolve(ctx.baseDir, p))
    : undefined;
  const cacheDir =
    source.cache_dir === undefined ? undefined : resolve(ctx.baseDir, source.cache_dir);
  return new TarView({
    name,
    template: resolve(ctx.baseDir, source.tar_template),
    resolver,
    matcher: source.matcher,
    mime: source.mime,
    cacheDir,
    languages,
    context: ctx,
  });
}

/** One view of a collection. */
export function buildView(
  name: string,
  spec: ViewSpec,
  config: CollectionConfig,
  languages: LanguageMap | undefined,
  ctx: BuildContext,
): View {
  const source = spec.source;
  switch (source.source) {
    case 'text_jsonl':
    case 'gzip_shards':
      return new LineTextView({
        name,
        source: lineSource(source, config, ctx),
        fields: textFields(source),
        languages,
        // Checked for plain JSONL only: sampling gzip shards would decompress one at start-up.
        ...(source.source === 'text_jsonl' && source.offset_source === 'offsetfile'
          ? { warn: (message: string) => ctx.logger.warn(message) }
          : {}),
      });
    case 'local_path': {
      const { base, pattern } = localPlacement(source, ctx.baseDir);
      const template = source.path_template !== undefined ? pattern : undefined;
      const glob = source.path_glob !== undefined ? pattern : undefined;
      return new LocalPathView({
        name,
        baseDir: base,
        template,
        glob,
        mime: source.mime,
        languages,
      });
    }
    case 'tar':
      return tarView(name, source, languages, ctx);
  }
}

/** The collection's language map, when `id_to_lang_mapping` is set. */
export function languageMap(config: CollectionConfig, baseDir: string): LanguageMap | undefined {
  const path = config.id_to_lang_mapping;
  return path === undefined
    ? undefined
    : new LanguageMap(isAbsolute(path) ? path : resolve(baseDir, path));
}
