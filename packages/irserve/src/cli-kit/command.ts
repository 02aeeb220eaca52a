/**
 * A command described once: its name, usage lines, positional arguments and flags. `formatHelp`
 * prints it as every irserve command's `--help` looks, and `runCommand` runs it.
 */
import type { FlagSpec, FlagSpecs } from './flag.js';
import { flagName } from './parse.js';

export interface PositionalSpec {
  /** As the usage shows it: `<input_dir>`. */
  name: string;
  /** Shown in the options block when given. */
  help?: string;
}

export interface CommandSpec<S extends FlagSpecs = FlagSpecs> {
  /** How errors name the command: `irserve-build-index`, `irserve eval`. */
  name: string;
  /** The forms of the command, each printed after `usage: ` (the first) or aligned under it. */
  usage: readonly string[];
  /** What the command does, a paragraph after the usage lines. */
  description?: string;
  /**
   * The positional arguments, in order. The command line must give exactly these, unless
   * `checksPositionals` says the command checks them itself (several forms).
   */
  positionals?: readonly PositionalSpec[];
  checksPositionals?: boolean;
  flags: S;
  /** Printed last: environment variables, what to run next. */
  footer?: string;
}

/** Width of the column the flags' names take before their help. */
const MIN_COLUMN = 22;
const MAX_COLUMN = 26;

function flagColumn(key: string, spec: FlagSpec): string {
  if (spec.kind === 'value') return `${flagName(key)} ${spec.placeholder}`;
  return spec.negatable ? `${flagName(key)} / --no-${key}` : flagName(key);
}

/** Rows of a two-column block, the help's lines aligned after the widest name (within limits). */
function columns(rows: readonly [string, string][]): string[] {
  const fitting = rows.map(([left]) => left.length).filter((n) => n + 2 <= MAX_COLUMN);
  const width = Math.min(MAX_COLUMN, Math.max(MIN_COLUMN, ...fitting.map((n) => n + 2)));
  const pad = ' '.repeat(2 + width);
  return rows.flatMap(([left, help]) => {
    const [first = '', ...more] = help.split('\n');
    const head =
      left.length + 2 <= width ? `  ${left.padEnd(width)}${first}` : `  ${left}\n${pad}${first}`;
    return [head, ...more.map((line) => `${pad}${line.trim()}`)];
  });
}

/** The usage lines: `usage: name args`, further forms aligned under the first. */
export function usageLines(spec: CommandSpec): string {
  const [first = spec.name, ...more] = spec.usage;
  return [`usage: ${first}`, ...more.map((line) => `       ${line}`)].join('\n');
}

/**
 * The `--help` text: usage lines, description, then the positionals with help and every flag,
 * aligned in two columns, `-h, --help` last, then the footer.
 *
 * @example
 * io.out(formatHelp(BUILD_INDEX));
 */
export function formatHelp(spec: CommandSpec): string {
  const rows: [string, string][] = [
    ...(spec.positionals ?? [])
      .filter((p) => p.help !== undefined)
      .map((p): [string, string] => [p.name, p.help!]),
    ...Object.entries(spec.flags).map(([key, flag]): [string, string] => [
      flagColumn(key, flag),
      flag.help,
    ]),
    ['-h, --help', 'this text'],
  ];
  const parts = [usageLines(spec)];
  if (spec.description) parts.push(spec.description);
  parts.push(`Options:\n${columns(rows).join('\n')}`);
  if (spec.footer) parts.push(spec.footer);
  return parts.join('\n\n');
}

/**
 * What a usage error prints after its message: the usage lines and where the rest is.
 *
 * @example usageHint(BUILD_INDEX) // 'usage: irserve-build-index <input_dir> ...\nRun "irserve-build-index --help" for every option.'
 */
export function usageHint(spec: CommandSpec): string {
  return `${usageLines(spec)}\nRun "${spec.name} --help" for every option.`;
}
