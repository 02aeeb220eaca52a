/**
 * Which members of a tar shard belong to an id: a glob (fnmatch rules: `*` also matches `/`) or a
 * regex, with `{id}` inserted literally and the pattern anchored at both ends.
 */
import type { TarSource } from '../config.js';

export interface MemberMatch {
  /** Every matching name starts with this (lets the index binary-search). */
  prefix: string;
  test: (name: string) => boolean;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function fnmatchSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[' && glob.indexOf(']', i + 2) > 0) {
      const close = glob.indexOf(']', i + 2);
      const body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
      out += `[${body.startsWith('!') ? '^' + body.slice(1) : body}]`;
      i = close;
    } else out += escapeRegex(c);
  }
  return out;
}

/** The literal start of `text` before the first character of `special`. */
function literalStart(text: string, special: RegExp): string {
  const at = text.search(special);
  return at < 0 ? text : text.slice(0, at);
}

/** The match rule for one id. */
export function matchMembers(matcher: TarSource['matcher'], id: string): MemberMatch {
  const pieces = matcher.pattern.split('{id}');
  if (matcher.kind === 'glob') {
    const source = pieces.map(fnmatchSource).join(escapeRegex(id));
    const regex = new RegExp(`^${source}$`, 's');
    const before = pieces[0] ?? '';
    const head = literalStart(before, /[*?[]/);
    const prefix = head === before ? before + id + literalStart(pieces[1] ?? '', /[*?[]/) : head;
    return { prefix, test: (name) => regex.test(name) };
  }
  const regex = new RegExp(`^(?:${pieces.join(escapeRegex(id))})$`, 's');
  const before = pieces[0] ?? '';
  const prefix = /[.*+?^${}()|[\]\\]/.test(before) ? '' : before + id;
  return { prefix, test: (name) => regex.test(name) };
}
