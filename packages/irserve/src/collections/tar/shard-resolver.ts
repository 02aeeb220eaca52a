/**
 * Which tar shard holds an id (RoutIR's resolvers): `manifest` (a CSV/TSV of id to shard),
 * `modulo` (first 8 bytes of SHA-256(id), big-endian, mod n) or `substring` (`id.slice(start, end)`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TarSource } from '../config.js';

type ResolverSpec = NonNullable<TarSource['shard_resolver']>;

export interface ShardResolver {
  open(): Promise<void>;
  /** The shard of an id (numbers for int-like manifest values and modulo), or undefined. */
  shardOf(id: string): string | number | undefined;
  /** Zero padding for a plain `{shard}`. */
  readonly width: number;
}

function splitRow(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
}

async function loadManifest(
  path: string,
  idColumn: string,
  shardColumn: string,
): Promise<Map<string, string | number>> {
  const delimiter = path.toLowerCase().endsWith('.tsv') ? '\t' : ',';
  const lines = (await readFile(path, 'utf8')).split(/\r?\n/).filter((l) => l !== '');
  const header = splitRow(lines[0] ?? '', delimiter);
  const idAt = header.indexOf(idColumn);
  const shardAt = header.indexOf(shardColumn);
  if (idAt < 0 || shardAt < 0)
    throw new Error(`${path}: header must have the columns "${idColumn}" and "${shardColumn}"`);
  const map = new Map<string, string | number>();
  for (const line of lines.slice(1)) {
    const row = splitRow(line, delimiter);
    const shard = row[shardAt];
    const id = row[idAt];
    if (id === undefined || shard === undefined) continue;
    map.set(id, /^\d+$/.test(shard) ? Number(shard) : shard);
  }
  return map;
}

/** RoutIR's modulo rule, so the same ids land in the same shards. */
export function moduloShard(id: string, n: number): number {
  const digest = createHash('sha256').update(id, 'utf8').digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(n));
}

/** Builds a resolver; `resolvePath` makes the manifest path absolute. */
export function createShardResolver(
  spec: ResolverSpec,
  resolvePath: (p: string) => string,
): ShardResolver {
  switch (spec.kind) {
    case 'manifest': {
      let map = new Map<string, string | number>();
      let loaded: Promise<void> | undefined;
      return {
        width: 0,
        open: () =>
          (loaded ??= loadManifest(resolvePath(spec.path), spec.id_column, spec.shard_column).then(
            (m) => void (map = m),
          )),
        shardOf: (id) => map.get(id),
      };
    }
    case 'modulo':
      return { width: spec.width, open: async () => {}, shardOf: (id) => moduloShard(id, spec.n) };
    case 'substring':
      return {
        width: 0,
        open: async () => {},
        shardOf: (id) => {
          const part = id.slice(spec.start, spec.end);
          return part === '' ? undefined : part;
        },
      };
  }
}
