/**
 * `{shard}` placeholders in tar templates, with the Python format specs RoutIR configs use:
 * `{shard}`, `{shard:d}`, `{shard:06d}`, `{shard:6}`.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const PLACEHOLDER = /\{shard(?::([^}]*))?\}/g;
const SPEC = /^(0?)(\d*)d?$/;

/** Throws when the template has a format spec this module cannot apply. */
export function checkShardTemplate(template: string): void {
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match[1] !== undefined && !SPEC.test(match[1]))
      throw new Error(
        `unsupported format spec {shard:${match[1]}} (use {shard}, {shard:d} or {shard:06d})`,
      );
  }
}

/**
 * Fills `{shard}` placeholders; a plain `{shard}` with a numeric shard is zero-padded to
 * `defaultWidth` when given (modulo resolver's `width`).
 *
 * @example
 * formatShard('shards/{shard:04d}.tar', 7) // 'shards/0007.tar'
 */
export function formatShard(template: string, shard: string | number, defaultWidth = 0): string {
  return template.replace(PLACEHOLDER, (_all, spec: string | undefined) => {
    const [, zero, width] = SPEC.exec(spec ?? '') ?? [];
    const text = String(shard);
    const size = width
      ? Number(width)
      : spec === undefined && typeof shard === 'number'
        ? defaultWidth
        : 0;
    return spec === undefined && typeof shard !== 'number'
      ? text
      : text.padStart(size, zero || spec === undefined ? '0' : ' ');
  });
}

export function hasShard(template: string): boolean {
  return /\{shard/.test(template);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Files on disk that match an absolute template whose `{shard}` is in the file name. */
export async function discoverShards(template: string): Promise<string[]> {
  const dir = dirname(template);
  if (hasShard(dir))
    throw new Error(`${template}: {shard} must be in the file name, not in a directory`);
  const name = basename(template);
  const literals = name.split(PLACEHOLDER).filter((_piece, i) => i % 2 === 0);
  const pattern = new RegExp(
    `^${literals.map((piece) => escapeRegex(piece ?? '')).join('.+?')}$`,
    's',
  );
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => pattern.test(n))
    .sort()
    .map((n) => join(dir, n));
}
