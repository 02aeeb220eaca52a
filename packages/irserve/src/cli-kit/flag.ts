/**
 * Flags of a command line, declared once: how each is spelled in the usage, what it takes, how
 * its text becomes a value and what a wrong value says. `parseCommandLine` reads them and
 * `formatHelp` lays them out, so every irserve command parses and documents flags alike.
 */
import { byteSizeOf } from '../storage/byte-size.js';
import { UsageError } from './usage-error.js';

/** A flag that takes a value: `--seed 7`, `--seed=7`. */
export interface ValueFlag<T, HasDefault extends boolean = boolean> {
  readonly kind: 'value';
  /** Stands for the value in the usage: `--seed N`. */
  readonly placeholder: string;
  /** One or more lines; the usage aligns them. */
  readonly help: string;
  readonly default?: T;
  /** Turns the text into the value; throws a UsageError naming `flag` when it is not one. */
  readonly parse: (raw: string, flag: string) => T;
  /**
   * The flag may be given several times: `parse` returns a list, and the lists of every
   * occurrence are joined (`--pipeline a --pipeline b`).
   */
  readonly repeatable?: boolean;
  /** Type-level only: whether the parsed value is always there. */
  readonly hasDefault?: HasDefault;
}

/** A flag that is on or off: `--use_gpu`; negatable ones also read `--no-normalize`. */
export interface SwitchFlag<HasDefault extends boolean = boolean> {
  readonly kind: 'switch';
  readonly help: string;
  readonly default?: boolean;
  readonly negatable?: boolean;
  readonly hasDefault?: HasDefault;
}

export type FlagSpec = ValueFlag<unknown> | SwitchFlag;
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** What a flag parses to: its value type, or that or undefined when it has no default. */
export type FlagValue<F> =
  F extends ValueFlag<infer T, infer D>
    ? D extends true
      ? T
      : T | undefined
    : F extends SwitchFlag<infer D>
      ? D extends true
        ? boolean
        : boolean | undefined
      : never;

export type FlagValues<S extends FlagSpecs> = { -readonly [K in keyof S]: FlagValue<S[K]> };

interface ValueOptions<T> {
  help: string;
  placeholder?: string;
  default?: T;
}

type Defaulted<D> = D extends undefined ? false : true;

/**
 * Any text.
 *
 * @example flag.string({ placeholder: 'DIR', help: 'model folder' })
 */
function string<D extends string | undefined = undefined>(
  options: ValueOptions<string> & { default?: D },
): ValueFlag<string, Defaulted<D>> {
  return { kind: 'value', placeholder: 'S', parse: (raw) => raw, ...options };
}

/** `a`, `a or b`, `a, b or c` (or with `and`). */
export function listing(items: readonly string[], conjunction: 'or' | 'and' = 'or'): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}

/**
 * One of a few words; the usage shows them (`--metric ip|l2`) unless a placeholder is given.
 *
 * @example flag.choice(['ip', 'l2'] as const, { default: 'ip', help: 'inner product (default) or L2' })
 */
function choice<const C extends string, D extends C | undefined = undefined>(
  choices: readonly C[],
  options: ValueOptions<C> & { default?: D },
): ValueFlag<C, Defaulted<D>> {
  return {
    kind: 'value',
    placeholder: choices.join('|'),
    parse: (raw, name) => {
      if ((choices as readonly string[]).includes(raw)) return raw as C;
      throw new UsageError(`${name} must be ${listing(choices)}, got ${raw}`);
    },
    ...options,
  };
}

interface RangeOptions {
  /** Smallest value allowed (default: none for numbers, 0 for integers; -Infinity: none). */
  min?: number;
  max?: number;
}

function rangeText(min: number | undefined, max: number | undefined): string {
  const low = min === undefined || min === -Infinity ? undefined : min;
  if (low !== undefined && max !== undefined) return ` from ${low} to ${max}`;
  if (low !== undefined) return ` of at least ${low}`;
  return max === undefined ? '' : ` up to ${max}`;
}

/**
 * A whole number (by default 0 or more).
 *
 * @example flag.integer({ placeholder: 'N', min: 1, max: 256, default: 1, help: 'worker threads' })
 */
function integer<D extends number | undefined = undefined>(
  options: ValueOptions<number> & RangeOptions & { default?: D },
): ValueFlag<number, Defaulted<D>> {
  const { min = 0, max, ...rest } = options;
  const what =
    min === 0 && max === undefined ? 'a non-negative integer' : `an integer${rangeText(min, max)}`;
  return {
    kind: 'value',
    placeholder: 'N',
    parse: (raw, name) => {
      const value = Number(raw);
      const ok = /^\s*[+-]?\d+\s*$/.test(raw) && Number.isSafeInteger(value);
      if (ok && value >= min && (max === undefined || value <= max)) return value;
      throw new UsageError(`${name} must be ${what}, got ${JSON.stringify(raw)}`);
    },
    ...rest,
  };
}

/**
 * A finite number.
 *
 * @example flag.number({ placeholder: 'F', default: 0.25, help: 'fraction of vectors that trains IVF/PQ' })
 */
function number<D extends number | undefined = undefined>(
  options: ValueOptions<number> & RangeOptions & { default?: D },
): ValueFlag<number, Defaulted<D>> {
  const { min, max, ...rest } = options;
  return {
    kind: 'value',
    placeholder: 'F',
    parse: (raw, name) => {
      const value = Number(raw);
      const ok = raw.trim() !== '' && Number.isFinite(value);
      if (ok && (min === undefined || value >= min) && (max === undefined || value <= max))
        return value;
      throw new UsageError(
        `${name} must be a number${rangeText(min, max)}, got ${JSON.stringify(raw)}`,
      );
    },
    ...rest,
  };
}

/**
 * A size in bytes, read as a config's `memory_budget` is (`parseByteSize`): `4096`, `64M` or
 * `64MiB` (K, M, G, T and KiB, MiB... are powers of 1024), `64MB` (KB, MB... powers of 1000),
 * `1.5G`.
 *
 * @example flag.bytes({ placeholder: 'SIZE', help: 'memory the build may use (e.g. 4G)' })
 */
function bytes<D extends number | undefined = undefined>(
  options: ValueOptions<number> & { default?: D },
): ValueFlag<number, Defaulted<D>> {
  return {
    kind: 'value',
    placeholder: 'SIZE',
    parse: (raw, name) => byteSizeOf(raw, name, (message) => new UsageError(message)),
    ...options,
  };
}

/**
 * Text that may be given several times, every occurrence kept in order (none: `[]`).
 *
 * @example flag.strings({ placeholder: 'EXPR', help: 'a pipeline (repeat it)' }) // --pipeline a --pipeline b
 */
function strings(options: { help: string; placeholder?: string }): ValueFlag<string[], true> {
  return {
    kind: 'value',
    placeholder: 'S',
    parse: (raw) => [raw],
    default: [],
    repeatable: true,
    ...options,
  };
}

/**
 * A switch (`--use_gpu`); `negatable` also reads `--no-<name>` as false.
 *
 * @example flag.switch({ negatable: true, help: "L2-normalise (default: the folder's)" })
 */
function onOff<D extends boolean | undefined = undefined>(options: {
  help: string;
  default?: D;
  negatable?: boolean;
}): SwitchFlag<Defaulted<D>> {
  return { kind: 'switch', ...options };
}

/** The flag constructors. */
export const flag = { string, strings, choice, integer, number, bytes, switch: onOff };
