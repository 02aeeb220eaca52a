/**
 * A small glob for `path_glob` bytes views: `*`, `?` and `[...]` inside one path segment (`*`
 * never crosses `/`). The `{id}` placeholder is inserted literally, never as a pattern.
 * Matching starts at the base directory and never walks above it.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export type Segment = { literal: string } | { pattern: RegExp };

const WILD = /[*?[]/;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Glob text (no `/`) to a regex source: `*` -> `[^/]*`, `?` -> `[^/]`, classes kept. */
export function globToRegexSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) out += '\\[';
      else {
        const body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
        out += `[${body.startsWith('!') ? '^' + body.slice(1) : body}]`;
        i = close;
      }
    } else out += escapeRegex(c);
  }
  return out;
}

/**
 * Splits a relative glob with `{id}` into segments; id text is literal. Returns `'escape'` when
 * literal `..` segments would climb above the base, `'none'` when nothing can match (an id with a
 * `/` inside a wildcard segment).
 */
export function globSegments(glob: string, id: string): Segment[] | 'escape' | 'none' {
  const segments: Segment[] = [];
  for (const part of glob.split('/')) {
    const pieces = part.split('{id}');
    const wild = pieces.some((p) => WILD.test(p));
    if (!wild) {
      for (const piece of pieces.join(id).split(/[/\\]/)) segments.push({ literal: piece });
      continue;
    }
    if (id.includes('/') || id.includes('\\')) return 'none';
    const source = pieces.map(globToRegexSource).join(escapeRegex(id));
    segments.push({ pattern: new RegExp(`^${source}$`, 's') });
  }
  const kept: Segment[] = [];
  for (const segment of segments) {
    if ('literal' in segment && (segment.literal === '' || segment.literal === '.')) continue;
    if ('literal' in segment && segment.literal === '..') {
      if (kept.length === 0 || !('literal' in kept[kept.length - 1]!)) return 'escape';
      kept.pop();
      continue;
    }
    kept.push(segment);
  }
  return kept;
}

/** Paths (absolute, sorted) under `base` matching the segments. */
export async function expandGlob(base: string, segments: Segment[]): Promise<string[]> {
  let current = [base];
  for (const segment of segments) {
    const next: string[] = [];
    for (const dir of current) {
      if ('literal' in segment) {
        next.push(join(dir, segment.literal));
        continue;
      }
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) if (segment.pattern.test(name)) next.push(join(dir, name));
    }
    current = next;
  }
  return current.sort();
}
