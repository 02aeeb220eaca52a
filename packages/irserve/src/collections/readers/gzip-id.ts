/**
 * Ids of the sharded gzip reader. The default parser is RoutIR's (MS MARCO v2.1 segmented ids,
 * `msmarco_v2.1_doc_<shard>_<doc>#<segment>_<offset>`): split on `_`, field 3 is the shard and
 * the last field (field 5) the byte offset of the line in the decompressed shard. Other id forms
 * plug in a module through `id_parser`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ShardLocation {
  shard: string | number;
  /** Byte offset of the document's line in the decompressed shard. */
  offset: number;
}

export type IdParser = (id: string) => ShardLocation | undefined | null;

/** RoutIR's parser; undefined when the id does not have that form. */
export const defaultIdParser: IdParser = (id) => {
  const fields = id.split('_');
  if (fields.length !== 6) return undefined;
  const shard = fields[3]!;
  const offset = fields[5]!;
  if (shard === '' || !/^\d{1,15}$/.test(offset)) return undefined;
  return { shard, offset: Number(offset) };
};

/**
 * Loads a custom parser: `./mod.mjs` (its default export) or `./mod.mjs#name` (a named export),
 * relative to `baseDir`.
 */
export async function loadIdParser(spec: string, baseDir: string): Promise<IdParser> {
  const hash = spec.lastIndexOf('#');
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const name = hash > 0 ? spec.slice(hash + 1) : 'default';
  const module = (await import(pathToFileURL(resolve(baseDir, file)).href)) as Record<
    string,
    unknown
  >;
  const parser = module[name];
  if (typeof parser !== 'function')
    throw new Error(`id_parser ${spec}: the module has no function export "${name}"`);
  return parser as IdParser;
}

/** Checks what a custom parser returned. */
export function checkLocation(location: unknown): ShardLocation | undefined {
  if (location === null || location === undefined || typeof location !== 'object') return undefined;
  const { shard, offset } = location as Partial<ShardLocation>;
  if ((typeof shard !== 'string' && typeof shard !== 'number') || typeof offset !== 'number')
    return undefined;
  if (!Number.isSafeInteger(offset) || offset < 0) return undefined;
  return { shard, offset };
}
