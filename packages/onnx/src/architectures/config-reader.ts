/**
 * Typed reads of a checkpoint's config.json: a missing or malformed key is a start-up error
 * naming config.json and the key.
 */
import { modelError } from '../errors.js';

export class ConfigReader {
  constructor(
    readonly folder: string,
    readonly config: Record<string, unknown>,
  ) {}

  /** A positive integer, from the first of `keys` present (architectures name sizes differently). */
  int(keys: string | readonly string[], fallback?: number): number {
    const [key, value] = this.#first(keys);
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw this.error(`${key} must be a non-negative integer, got ${JSON.stringify(value)}`);
    return value;
  }

  /** A finite number. */
  number(keys: string | readonly string[], fallback?: number): number {
    const [key, value] = this.#first(keys);
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw this.error(`${key} must be a number, got ${JSON.stringify(value)}`);
    return value;
  }

  /** A string. */
  string(keys: string | readonly string[], fallback?: string): string {
    const [key, value] = this.#first(keys);
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'string')
      throw this.error(`${key} must be a string, got ${JSON.stringify(value)}`);
    return value;
  }

  /** A boolean. */
  flag(key: string, fallback: boolean): boolean {
    const value = this.config[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean')
      throw this.error(`${key} must be true or false, got ${JSON.stringify(value)}`);
    return value;
  }

  /** The raw value (for keys whose absence means something). */
  raw(key: string): unknown {
    return this.config[key];
  }

  /** A start-up error about config.json. */
  error(message: string): Error {
    return modelError(this.folder, `config.json: ${message}`);
  }

  #first(keys: string | readonly string[]): [string, unknown] {
    const list = typeof keys === 'string' ? [keys] : keys;
    for (const key of list) {
      const value = this.config[key];
      if (value !== undefined && value !== null) return [key, value];
    }
    return [list[0]!, undefined];
  }
}
