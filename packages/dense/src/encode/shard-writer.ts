/**
 * Collects embedded documents and writes them as `.npy` dict shards (`shard-00000.npy`, ...)
 * when asked, so that memory holds at most one shard of vectors.
 */
import { join } from 'node:path';
import { writeDictShard } from '../formats/index.js';

export class ShardWriter {
  /** Paths of the shards written so far, in order. */
  readonly shards: string[] = [];
  /** Dimension of the vectors of the last shard written (0 before the first). */
  dim = 0;
  readonly #outputDir: string;
  readonly #dtype: 'float32' | 'float16';
  #vectors: Float32Array[] = [];
  #ids: string[] = [];

  constructor(outputDir: string, dtype: 'float32' | 'float16') {
    this.#outputDir = outputDir;
    this.#dtype = dtype;
  }

  /** Vectors added since the last shard was written. */
  get buffered(): number {
    return this.#ids.length;
  }

  /** Buffers the vectors of `ids`, in the same order. */
  add(vectors: Float32Array[], ids: string[]): void {
    this.#vectors.push(...vectors);
    this.#ids.push(...ids);
  }

  /** Writes the buffered vectors as the next shard; does nothing when none are buffered. */
  async flush(): Promise<void> {
    if (this.#ids.length === 0) return;
    const name = `shard-${String(this.shards.length).padStart(5, '0')}.npy`;
    const path = join(this.#outputDir, name);
    const dim = this.#vectors[0]!.length;
    this.dim = dim;
    const packed = new Float32Array(this.#ids.length * dim);
    this.#vectors.forEach((vector, i) => packed.set(vector, i * dim));
    await writeDictShard(path, packed, dim, this.#ids, this.#dtype);
    this.shards.push(path);
    this.#vectors = [];
    this.#ids = [];
  }
}
