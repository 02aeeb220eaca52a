/**
 * Reads a command line against declared flags. A flag's name is spelled with underscores in the
 * usage (`--index_string`, RoutIR's and the specification's spelling) and read with hyphens too
 * (`--index-string`), so every command accepts both. `--name value` and `--name=value` both
 * work; `--` ends the flags.
 */
import { closest } from '../util/suggest.js';
import type { FlagSpec, FlagSpecs, FlagValues } from './flag.js';
import { UsageError } from './usage-error.js';

export interface ParsedCommandLine<S extends FlagSpecs> {
  flags: FlagValues<S>;
  positionals: string[];
}

/** `--index-string` and `--index_string` are one flag, `index_string`. */
function keyOf(name: string): string {
  return name.replaceAll('-', '_');
}

/** How the usage spells a flag. */
export function flagName(key: string): string {
  return `--${key}`;
}

/** The flag a `--name` refers to, and whether it is a switch's `--no-` form. */
function lookup(specs: FlagSpecs, name: string): { key: string; spec: FlagSpec; negated: boolean } {
  const key = keyOf(name);
  const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
  if (spec) return { key, spec, negated: false };
  const positive = key.startsWith('no_') ? key.slice(3) : undefined;
  const negatable =
    positive !== undefined && Object.hasOwn(specs, positive) ? specs[positive] : undefined;
  if (negatable?.kind === 'switch' && negatable.negatable)
    return { key: positive!, spec: negatable, negated: true };
  const hint = closest(key, [...Object.keys(specs), 'help']);
  throw new UsageError(
    `unknown option --${name}${hint === undefined ? '' : ` (did you mean ${flagName(hint)}?)`}`,
  );
}

/** Every flag's default (switches without one stay undefined). */
function defaults<S extends FlagSpecs>(specs: S): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) values[key] = spec.default;
  return values;
}

/**
 * The flags and positional arguments of `argv` (without node and the script); a UsageError for
 * an unknown flag (with a "did you mean"), a missing or malformed value, or a value given to a
 * switch.
 *
 * @example
 * parseCommandLine({ seed: flag.integer({ default: 0, help: 'seed' }) }, ['in', '--seed=7'])
 * // { flags: { seed: 7 }, positionals: ['in'] }
 */
export function parseCommandLine<S extends FlagSpecs>(
  specs: S,
  argv: readonly string[],
): ParsedCommandLine<S> {
  const values = defaults(specs);
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg))
        throw new UsageError(`unknown option ${arg}`);
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    const inline = equals < 0 ? undefined : arg.slice(equals + 1);
    const { key, spec, negated } = lookup(specs, name);
    if (spec.kind === 'switch') {
      if (inline !== undefined) throw new UsageError(`${flagName(key)} takes no value`);
      values[key] = !negated;
      continue;
    }
    const raw = inline ?? argv[i + 1];
    if (raw === undefined || (inline === undefined && raw.startsWith('--')))
      throw new UsageError(`${flagName(key)} needs a value (${flagName(key)} ${spec.placeholder})`);
    if (inline === undefined) i++;
    const value = spec.parse(raw, flagName(key));
    values[key] = spec.repeatable
      ? [...(values[key] as unknown[]), ...(value as unknown[])]
      : value;
  }
  return { flags: values as FlagValues<S>, positionals };
}

/** Whether the arguments ask for help (`--help` or `-h` anywhere before a `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
