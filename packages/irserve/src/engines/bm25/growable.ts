/**
 * Append-only typed arrays that double their capacity (index building), up to the most elements
 * a typed array holds.
 */
import { MAX_ARRAY_ELEMENTS } from '../../storage/index.js';

type TypedArrayCtor<T> = { new (length: number): T };

class Growable<T extends Int32Array | Uint32Array | Uint16Array | Uint8Array> {
  #data: T;
  #length = 0;
  readonly #ctor: TypedArrayCtor<T>;

  constructor(ctor: TypedArrayCtor<T>, capacity = 1024) {
    this.#ctor = ctor;
    this.#data = new ctor(capacity);
  }

  get length(): number {
    return this.#length;
  }

  /** The backing array (valid until the next push); read indexes below `length`. */
  get data(): T {
    return this.#data;
  }

  push(value: number): void {
    if (this.#length === this.#data.length) this.#grow(this.#length + 1);
    this.#data[this.#length++] = value;
  }

  /** Makes room for `length` elements (new ones are zero) and sets the length. */
  resize(length: number): void {
    if (length > this.#data.length) this.#grow(length);
    this.#length = length;
  }

  /** A trimmed copy of the contents. */
  toArray(): T {
    return this.#data.slice(0, this.#length) as T;
  }

  #grow(minimum: number): void {
    if (minimum > MAX_ARRAY_ELEMENTS)
      throw new RangeError(`more than ${MAX_ARRAY_ELEMENTS} elements do not fit one typed array`);
    let capacity = Math.max(this.#data.length * 2, 16);
    while (capacity < minimum) capacity *= 2;
    capacity = Math.min(capacity, MAX_ARRAY_ELEMENTS);
    const next = new this.#ctor(capacity);
    next.set(this.#data);
    this.#data = next;
  }
}

export class GrowableInt32 extends Growable<Int32Array> {
  constructor(capacity?: number) {
    super(Int32Array, capacity);
  }
}

export class GrowableUint32 extends Growable<Uint32Array> {
  constructor(capacity?: number) {
    super(Uint32Array, capacity);
  }
}

export class GrowableUint16 extends Growable<Uint16Array> {
  constructor(capacity?: number) {
    super(Uint16Array, capacity);
  }
}

export class GrowableUint8 extends Growable<Uint8Array> {
  constructor(capacity?: number) {
    super(Uint8Array, capacity);
  }
}
