/**
 * The weights a graph builder takes from a checkpoint, each checked against the shape the
 * config implies: a missing tensor, a wrong shape or an element type irserve cannot compute
 * with is a start-up error naming the file and the tensor.
 */
import { modelError } from '../errors.js';
import { locationOf, type WeightEntry, type Weights } from '../checkpoint/weights.js';
import type { ElementName, GraphBuilder } from './graph-builder.js';

const FLOAT_TYPES: ReadonlySet<string> = new Set(['float32', 'float16', 'bfloat16']);

/** Old checkpoints name layer-norm parameters as TensorFlow did. */
const ALIASES: readonly [string, string][] = [
  ['.weight', '.gamma'],
  ['.bias', '.beta'],
];

export class WeightReader {
  constructor(
    readonly builder: GraphBuilder,
    readonly weights: Weights,
  ) {}

  /** Whether the checkpoint holds `name` (or its old alias). */
  has(name: string): boolean {
    return this.#entry(name) !== undefined;
  }

  /**
   * The float32 value of tensor `name`, whose shape must be `shape`; `why` says what in
   * config.json implies it (for the error).
   *
   * @example reader.get('bert.pooler.dense.weight', [768, 768], 'hidden_size 768')
   */
  get(name: string, shape: readonly number[], why: string): string {
    const entry = this.#entry(name);
    if (!entry)
      throw this.error(
        `tensor ${name} is missing from ${this.weights.source} (${why}; it holds ${this.weights.size} tensors, e.g. ${this.weights.names.slice(0, 3).join(', ')})`,
      );
    const where = entry.label;
    if (entry.shape.length !== shape.length || entry.shape.some((d, i) => d !== shape[i]))
      throw this.error(
        `${where}: tensor ${entry.name} has shape [${entry.shape.join(', ')}], but config.json (${why}) implies [${shape.join(', ')}]`,
      );
    if (!FLOAT_TYPES.has(entry.dtype))
      throw this.error(
        `${where}: tensor ${entry.name} is stored as ${entry.dtype}; irserve reads float32, float16 and bfloat16 weights`,
      );
    return this.builder.external(entry.name, {
      dtype: entry.dtype as ElementName,
      shape: entry.shape,
      location: locationOf(entry),
      offset: entry.offset,
      length: entry.length,
    });
  }

  /** `get` for an optional tensor: undefined when the checkpoint does not hold it. */
  optional(name: string, shape: readonly number[], why: string): string | undefined {
    return this.has(name) ? this.get(name, shape, why) : undefined;
  }

  /** The shape of a tensor the checkpoint holds (for sizes config.json does not give). */
  shapeOf(name: string): readonly number[] | undefined {
    return this.#entry(name)?.shape;
  }

  /** A start-up error about this checkpoint. */
  error(message: string): Error {
    return modelError(this.weights.folder, message);
  }

  #entry(name: string): WeightEntry | undefined {
    const direct = this.weights.get(name);
    if (direct) return direct;
    for (const [suffix, old] of ALIASES)
      if (name.endsWith(suffix)) return this.weights.get(name.slice(0, -suffix.length) + old);
    return undefined;
  }
}
