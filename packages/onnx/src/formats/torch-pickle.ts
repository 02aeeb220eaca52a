/**
 * The pickle of a PyTorch file (`data.pkl` of a `torch.save` archive, or the main pickle of a
 * legacy one), read with an allow-list: tensors (`torch._utils._rebuild_tensor_v2` over typed
 * storages), tuples, lists, dicts, numbers, strings and `collections.OrderedDict`. Nothing is
 * executed; any other global is refused with its name. Every opcode consumes input, so hostile
 * bytes cannot loop, and the stack and memo are bounded. Tensors come out as slices of their
 * storages; the caller turns a slice into bytes (a file read whole) or a file offset (weights
 * handed to ONNX Runtime as they lie on disk).
 */
import { FormatError, type PickleCursor } from 'irserve/plugin';
import { DTYPE_SIZE, numel, type Tensor, type TensorDtype } from './tensor.js';

/** What a PyTorch pickle may hold; `T` is what a tensor becomes. */
export type PickleData<T> =
  | null
  | boolean
  | number
  | string
  | T
  | PickleData<T>[]
  | { readonly kind: 'tuple'; readonly items: readonly PickleData<T>[] }
  | Map<string | number, PickleData<T>>;

/** A `.pt` file read whole: tensors are views of its bytes. */
export type TorchValue = PickleData<Tensor>;

/** A contiguous tensor inside one storage, in bytes from the storage's start. */
export interface TensorSlice {
  readonly dtype: TensorDtype;
  readonly shape: readonly number[];
  readonly storage: string;
  readonly byteOffset: number;
  readonly byteLength: number;
}

/** How the pickle reaches the storages: their sizes (to check slices) and the tensors made of them. */
export interface StorageLookup<T> {
  /** Bytes of storage `key` (`data/<key>` in an archive), or undefined when it is missing. */
  size(key: string): number | undefined;
  tensor(slice: TensorSlice): T;
}

/** Storage classes (`torch.FloatStorage`...) and their element types. */
const STORAGES: ReadonlyMap<string, TensorDtype> = new Map([
  ['DoubleStorage', 'float64'],
  ['FloatStorage', 'float32'],
  ['HalfStorage', 'float16'],
  ['BFloat16Storage', 'bfloat16'],
  ['LongStorage', 'int64'],
  ['IntStorage', 'int32'],
  ['ShortStorage', 'int16'],
  ['CharStorage', 'int8'],
  ['ByteStorage', 'uint8'],
  ['BoolStorage', 'bool'],
]);

class Callable {
  constructor(
    readonly name: 'rebuild' | 'ordered-dict' | 'storage',
    readonly dtype: TensorDtype = 'uint8',
  ) {}
}
class Storage {
  constructor(
    readonly dtype: TensorDtype,
    readonly key: string,
    readonly byteLength: number,
  ) {}
}
interface Tuple {
  readonly kind: 'tuple';
  readonly items: readonly Item[];
}
/** A tensor made by the lookup, boxed so it is never mistaken for a pickle container. */
class Made {
  constructor(readonly value: unknown) {}
}
type Item = PickleData<Made> | Callable | Storage | Tuple;

const LIMIT = 1 << 20;

function isTuple(value: Item | undefined): value is Tuple {
  return typeof value === 'object' && value !== null && 'kind' in value && value.kind === 'tuple';
}

function resolveGlobal(module: string, name: string, file: string): Callable {
  if (module === 'torch._utils' && name === '_rebuild_tensor_v2') return new Callable('rebuild');
  if (module === 'collections' && name === 'OrderedDict') return new Callable('ordered-dict');
  const dtype = module === 'torch' ? STORAGES.get(name) : undefined;
  if (dtype) return new Callable('storage', dtype);
  throw new FormatError(
    file,
    `pickle global ${module}.${name} is not allowed (a PyTorch file may hold tensors, numbers, strings, lists, tuples and dicts; nothing is executed)`,
  );
}

/** The unpickler's state while one `data.pkl` runs. */
class Machine {
  readonly stack: Item[] = [];
  readonly marks: number[] = [];
  readonly memo = new Map<number, Item>();
  result: Item | undefined;

  constructor(
    readonly input: PickleCursor,
    readonly file: string,
    readonly storages: StorageLookup<unknown>,
  ) {}

  fail(why: string): never {
    throw new FormatError(this.file, `${why} (pickle byte ${this.input.at})`);
  }

  push(value: Item): void {
    if (this.stack.length >= LIMIT) this.fail('pickle stack too deep');
    this.stack.push(value);
  }

  pop(): Item {
    if (this.stack.length <= (this.marks.at(-1) ?? 0)) this.fail('pickle stack underflow');
    return this.stack.pop()!;
  }

  mark(): void {
    if (this.marks.length >= 4096) this.fail('pickle marks nested too deep');
    this.marks.push(this.stack.length);
  }

  popMark(): Item[] {
    const at = this.marks.pop();
    if (at === undefined) return this.fail('pickle MARK missing');
    return this.stack.splice(at);
  }

  data(value: Item): PickleData<Made> {
    if (value instanceof Callable || value instanceof Storage)
      this.fail('pickle helper used as data');
    return value as PickleData<Made>;
  }

  tuple(items: Item[]): void {
    this.push({ kind: 'tuple', items });
  }

  append(items: Item[]): void {
    const list = this.stack.at(-1);
    if (!Array.isArray(list)) this.fail('pickle APPEND to a non-list');
    for (const item of items) list.push(this.data(item));
  }

  setItems(pairs: Item[]): void {
    const target = this.stack.at(-1);
    if (!(target instanceof Map)) return this.fail('pickle SETITEM on a non-dict');
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const key = pairs[i];
      if (typeof key !== 'string' && typeof key !== 'number') this.fail('unsupported dict key');
      target.set(key, this.data(pairs[i + 1]!));
    }
  }

  memoize(key: number): void {
    if (this.memo.size >= LIMIT) this.fail('pickle memo too large');
    this.memo.set(key, this.stack.at(-1) ?? this.fail('pickle PUT on an empty stack'));
  }

  recall(key: number): void {
    this.push(this.memo.get(key) ?? this.fail(`pickle memo key ${key} missing`));
  }

  /** `('storage', torch.FloatStorage, key, location, numel)` -> the storage, size checked. */
  persistent(pid: Item): Storage {
    const [tag, type, key, , count] = isTuple(pid) ? pid.items : [];
    if (tag !== 'storage' || !(type instanceof Callable) || type.name !== 'storage')
      return this.fail('unsupported persistent id (expected a tensor storage)');
    if (typeof key !== 'string' || typeof count !== 'number') return this.fail('bad storage id');
    const size = this.storages.size(key) ?? this.fail(`storage data/${key} is missing`);
    const needed = count * DTYPE_SIZE[type.dtype];
    if (size < needed) this.fail(`storage data/${key} holds ${size} of ${needed} bytes`);
    return new Storage(type.dtype, key, needed);
  }

  reduce(): void {
    const args = this.pop();
    const fn = this.pop();
    if (!(fn instanceof Callable)) return this.fail('pickle REDUCE on a non-callable');
    if (!isTuple(args)) return this.fail('pickle REDUCE arguments are not a tuple');
    if (fn.name === 'ordered-dict') return this.push(new Map());
    if (fn.name !== 'rebuild') return this.fail('a storage class called directly');
    this.push(this.tensor(args.items));
  }

  /** `_rebuild_tensor_v2(storage, offset, size, stride, ...)`: contiguous tensors only. */
  tensor([storage, offset, size, stride]: readonly Item[]): Made {
    if (!(storage instanceof Storage) || typeof offset !== 'number')
      return this.fail('bad tensor arguments');
    const shape = this.ints(size);
    const strides = this.ints(stride);
    let expected = 1;
    for (let d = shape.length - 1; d >= 0; d--) {
      if (shape[d]! > 1 && strides[d] !== expected)
        this.fail('non-contiguous tensor (save a .contiguous() copy)');
      expected *= shape[d]!;
    }
    const width = DTYPE_SIZE[storage.dtype];
    const start = offset * width;
    const length = numel(shape) * width;
    if (start + length > storage.byteLength) this.fail('tensor extends beyond its storage');
    const slice = {
      dtype: storage.dtype,
      shape,
      storage: storage.key,
      byteOffset: start,
      byteLength: length,
    };
    return new Made(this.storages.tensor(slice));
  }

  ints(value: Item | undefined): number[] {
    const items = isTuple(value) ? value.items : undefined;
    if (!items || !items.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0))
      return this.fail('bad tensor size or stride');
    return items as number[];
  }
}

type Handler = (m: Machine) => void;

function tupleN(n: number): Handler {
  return (m) => {
    const items: Item[] = [];
    for (let i = 0; i < n; i++) items.unshift(m.pop());
    m.tuple(items);
  };
}

function stackGlobal(m: Machine): void {
  const name = m.pop();
  const module = m.pop();
  if (typeof module !== 'string' || typeof name !== 'string') m.fail('bad STACK_GLOBAL');
  m.push(resolveGlobal(module, name, m.file));
}

function long1(m: Machine): void {
  const value = m.input.long(m.input.u8());
  m.push(typeof value === 'bigint' ? m.fail('integer beyond 2^53 in pickle') : value);
}

function setItem(m: Machine): void {
  const value = m.pop();
  const key = m.pop();
  m.setItems([key, value]);
}

/** Opcode -> handler: the opcodes torch.save's pickles use (protocols 2 to 5). */
const OPCODES: ReadonlyMap<number, Handler> = new Map<number, Handler>([
  [0x80, (m) => (m.input.u8() > 5 ? m.fail('unsupported pickle protocol') : undefined)],
  [0x95, (m) => void m.input.u64()],
  [0x28, (m) => m.mark()],
  [0x29, (m) => m.tuple([])],
  [0x74, (m) => m.tuple(m.popMark())],
  [0x85, tupleN(1)],
  [0x86, tupleN(2)],
  [0x87, tupleN(3)],
  [0x5d, (m) => m.push([])],
  [0x7d, (m) => m.push(new Map())],
  [0x61, (m) => m.append([m.pop()])],
  [0x65, (m) => m.append(m.popMark())],
  [0x73, setItem],
  [0x75, (m) => m.setItems(m.popMark())],
  [0x4e, (m) => m.push(null)],
  [0x88, (m) => m.push(true)],
  [0x89, (m) => m.push(false)],
  [0x4a, (m) => m.push(m.input.i32())],
  [0x4b, (m) => m.push(m.input.u8())],
  [0x4d, (m) => m.push(m.input.u16())],
  [0x8a, long1],
  [0x47, (m) => m.push(m.input.f64be())],
  [0x58, (m) => m.push(m.input.utf8(m.input.u32()))],
  [0x8c, (m) => m.push(m.input.utf8(m.input.u8()))],
  [0x63, (m) => m.push(resolveGlobal(m.input.line(), m.input.line(), m.file))],
  [0x93, stackGlobal],
  [0x51, (m) => m.push(m.persistent(m.pop()))],
  [0x52, (m) => m.reduce()],
  [0x71, (m) => m.memoize(m.input.u8())],
  [0x72, (m) => m.memoize(m.input.u32())],
  [0x94, (m) => m.memoize(m.memo.size)],
  [0x68, (m) => m.recall(m.input.u8())],
  [0x6a, (m) => m.recall(m.input.u32())],
  [0x30, (m) => void m.pop()],
  [0x2e, (m) => (m.result = m.pop())],
]);

/**
 * Unpickles the pickle at the start of `input` (the cursor is left after its STOP); tensors
 * become what `storages.tensor` makes of their slices.
 *
 * @example readTorchPickle(new PickleCursor(pkl, 'x.pt'), { size, tensor: (s) => s })
 */
export function readTorchPickle<T>(input: PickleCursor, storages: StorageLookup<T>): PickleData<T> {
  const machine: Machine = new Machine(input, input.file, storages);
  while (machine.result === undefined) {
    if (machine.input.done()) machine.fail('truncated pickle: no STOP');
    const op = machine.input.u8();
    const handler = OPCODES.get(op);
    if (!handler) machine.fail(`unsupported pickle opcode 0x${op.toString(16).padStart(2, '0')}`);
    handler(machine);
  }
  return unbox(machine.data(machine.result), new Set(), machine) as PickleData<T>;
}

/** The value with every made tensor taken out of its box; a container inside itself is refused. */
function unbox(value: PickleData<Made>, open: Set<object>, machine: Machine): unknown {
  if (value instanceof Made) return value.value;
  if (value === null || typeof value !== 'object') return value;
  if (open.has(value)) machine.fail('pickle container holds itself');
  open.add(value);
  let out: unknown = value;
  if (Array.isArray(value)) out = value.map((item) => unbox(item, open, machine));
  else if (value instanceof Map)
    for (const [key, item] of value) value.set(key, unbox(item, open, machine) as PickleData<Made>);
  else out = { kind: 'tuple', items: value.items.map((item) => unbox(item, open, machine)) };
  open.delete(value);
  return out;
}
