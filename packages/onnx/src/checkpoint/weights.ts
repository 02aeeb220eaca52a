/**
 * The weights of a checkpoint folder, whatever files hold them: one tensor name -> its element
 * type, shape and place in a file. Nothing but headers is read: the tensors stay on disk until
 * ONNX Runtime reads them.
 */
import { basename, dirname } from 'node:path';

/** One tensor of a checkpoint: where its bytes lie. */
export interface WeightEntry {
  readonly name: string;
  /** `float32`, `float16`, `bfloat16`, ... (a TensorDtype), or the file's own name for others. */
  readonly dtype: string;
  readonly shape: readonly number[];
  /** The real path of the file (links resolved): what ONNX Runtime reads. */
  readonly file: string;
  /** The file's name in the checkpoint folder, for messages. */
  readonly label: string;
  readonly offset: number;
  readonly length: number;
}

export class Weights {
  readonly #entries: ReadonlyMap<string, WeightEntry>;

  /**
   * @param folder the checkpoint folder (for messages)
   * @param source what was read, e.g. `model.safetensors` or `pytorch_model.bin.index.json`
   */
  constructor(
    readonly folder: string,
    readonly source: string,
    entries: Iterable<WeightEntry>,
  ) {
    this.#entries = new Map([...entries].map((entry) => [entry.name, entry]));
  }

  get(name: string): WeightEntry | undefined {
    return this.#entries.get(name);
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  get names(): string[] {
    return [...this.#entries.keys()];
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Total bytes of the tensors. */
  get bytes(): number {
    let total = 0;
    for (const entry of this.#entries.values()) total += entry.length;
    return total;
  }

  /** The distinct files the tensors lie in. */
  get files(): string[] {
    return [...new Set([...this.#entries.values()].map((entry) => entry.file))];
  }

  /**
   * The one directory every weight file lies in (ONNX Runtime reads external data from one
   * folder), or undefined when they are spread over several.
   */
  get directory(): string | undefined {
    const dirs = new Set(this.files.map((file) => dirname(file)));
    return dirs.size === 1 ? [...dirs][0] : undefined;
  }
}

/** The name ONNX Runtime finds a weight file by, inside `Weights.directory`. */
export function locationOf(entry: WeightEntry): string {
  return basename(entry.file);
}
