/** Append-only typed arrays that double when full (the offset-map builder's storage). */

type TypedArray = Uint8Array | Uint32Array | Float64Array;
type Ctor<T extends TypedArray> = new (length: number) => T;

export class Growable<T extends TypedArray> {
  #data: T;
  #length = 0;
  readonly #ctor: Ctor<T>;

  constructor(ctor: Ctor<T>, initial = 1024) {
    this.#ctor = ctor;
    this.#data = new ctor(initial);
  }

  get length(): number {
    return this.#length;
  }

  #reserve(extra: number): void {
    if (this.#length + extra <= this.#data.length) return;
    let size = this.#data.length * 2;
    while (size < this.#length + extra) size *= 2;
    const next = new this.#ctor(size);
    next.set(this.#data.subarray(0, this.#length));
    this.#data = next;
  }

  push(value: number): void {
    this.#reserve(1);
    this.#data[this.#length++] = value;
  }

  /** Appends `source[start, end)` (Uint8 storage only). */
  append(source: Uint8Array, start: number, end: number): void {
    this.#reserve(end - start);
    (this.#data as Uint8Array).set(source.subarray(start, end), this.#length);
    this.#length += end - start;
  }

  /** The filled part, trimmed to a fresh array of exactly `length` elements. */
  finish(): T {
    const out = new this.#ctor(this.#length);
    out.set(this.#data.subarray(0, this.#length));
    return out;
  }
}
