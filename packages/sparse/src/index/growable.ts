/** Append-only typed arrays for the builder: doubling capacity, then one exact-length copy. */

type TypedArray = Uint32Array | Uint16Array | Float32Array;

interface TypedArrayConstructor<T extends TypedArray> {
  new (length: number): T;
}

/**
 * A typed array that grows by doubling while a builder appends to it.
 *
 * @example
 * const ids = new Growable(Uint32Array);
 * ids.push(7);
 * ids.toArray(); // Uint32Array [7]
 */
export class Growable<T extends TypedArray> {
  #data: T;
  #length = 0;
  readonly #make: TypedArrayConstructor<T>;

  constructor(make: TypedArrayConstructor<T>, capacity = 1024) {
    this.#make = make;
    this.#data = new make(capacity);
  }

  get length(): number {
    return this.#length;
  }

  push(value: number): void {
    if (this.#length === this.#data.length) this.#grow(this.#length + 1);
    this.#data[this.#length++] = value;
  }

  /** The values so far, a view valid until the next `push` (no copy). */
  view(): T {
    return this.#data.subarray(0, this.#length) as T;
  }

  /** The values so far, in a new array of exactly their length. */
  toArray(): T {
    return this.#data.slice(0, this.#length) as T;
  }

  #grow(needed: number): void {
    const next = new this.#make(Math.max(needed, this.#data.length * 2));
    next.set(this.#data);
    this.#data = next;
  }
}
