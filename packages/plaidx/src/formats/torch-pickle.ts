/**
 * The pickle inside a `.pt` archive (`data.pkl`), read with an allow-list: tensors
 * (`torch._utils._rebuild_tensor_v2` over typed storages), tuples, lists, dicts, numbers,
 * strings and `collections.OrderedDict`. Nothing is executed; any other global is refused
 * with its name. Every opcode consumes input, so hostile bytes cannot loop, and the stack and
 * memo are bounded.
 */
import { FormatError, PickleCursor } from '@irserve/dense';
import { DTYPE_SIZE, numel, type Tensor, type TensorDtype } from './tensor.js';

/** What a `.pt` pickle may hold. */
export type TorchValue =
  | null
  | boolean
  | number
  | string
  | Tensor
  | TorchValue[]
  | { readonly kind: 'tuple'; readonly items: readonly TorchValue[] }
  | Map<string | number, TorchValue>;

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
    readonly dtype?: TensorDtype,
  ) {}
}
class Storage {
  constructor(
    readonly dtype: TensorDtype,
    readonly bytes: Uint8Array,
  ) {}
}
type Item = TorchValue | Callable | Storage;

const LIMIT = 1 << 20;

function resolve(module: string, name: string, file: string): Callable {
  if (module === 'torch._utils' && name === '_rebuild_tensor_v2') return new Callable('rebuild');
  if (module === 'collections' && name === 'OrderedDict') return new Callable('ordered-dict');
  const dtype = module === 'torch' ? STORAGES.get(name) : undefined;
  if (dtype) return new Callable('storage', dtype);
  throw new FormatError(file, `pickle global ${module}.${name} is not allowed in a PLAID .pt file`);
}

/**
 * Unpickles `data.pkl` of a `.pt` archive; `storage(key)` returns the bytes of `data/<key>`.
 *
 * @example readTorchPickle(pkl, (key) => members.get(`centroids/data/${key}`), 'centroids.pt')
 */
export function readTorchPickle(
  bytes: Uint8Array,
  storage: (key: string) => Uint8Array | undefined,
  file: string,
): TorchValue {
  const input = new PickleCursor(bytes, file);
  const stack: Item[] = [];
  const marks: number[] = [];
  const memo = new Map<number, Item>();
  const fail = (why: string): never => {
    throw new FormatError(file, `${why} (pickle byte ${input.at})`);
  };
  const push = (value: Item): void => {
    if (stack.length >= LIMIT) fail('pickle stack too deep');
    stack.push(value);
  };
  const pop = (): Item => {
    if (stack.length <= (marks.at(-1) ?? 0)) fail('pickle stack underflow');
    return stack.pop()!;
  };
  const popMark = (): Item[] => {
    const at = marks.pop();
    if (at === undefined) return fail('pickle MARK missing');
    return stack.splice(at);
  };
  const data = (value: Item): TorchValue =>
    value instanceof Callable || value instanceof Storage
      ? fail('pickle helper used as data')
      : value;
  const tuple = (items: Item[]): void => push({ kind: 'tuple', items: items as TorchValue[] });
  const setItems = (pairs: Item[]): void => {
    const target = stack.at(-1);
    if (!(target instanceof Map)) return fail('pickle SETITEM on a non-dict');
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const key = pairs[i];
      if (typeof key !== 'string' && typeof key !== 'number') fail('unsupported dict key');
      target.set(key as string | number, data(pairs[i + 1]!));
    }
  };
  const memoize = (key: number): void => {
    if (memo.size >= LIMIT) fail('pickle memo too large');
    memo.set(key, stack.at(-1) ?? fail('pickle PUT on an empty stack'));
  };
  const recall = (key: number): void =>
    push(memo.get(key) ?? fail(`pickle memo key ${key} missing`));
  for (;;) {
    if (input.done()) fail('truncated pickle: no STOP');
    const op = input.u8();
    switch (op) {
      case 0x80: // PROTO
        if (input.u8() > 5) fail('unsupported pickle protocol');
        break;
      case 0x95: // FRAME
        input.u64();
        break;
      case 0x28: // MARK
        if (marks.length >= 4096) fail('pickle marks nested too deep');
        marks.push(stack.length);
        break;
      case 0x29: // EMPTY_TUPLE
        tuple([]);
        break;
      case 0x74: // TUPLE
        tuple(popMark());
        break;
      case 0x85:
      case 0x86:
      case 0x87: {
        const n = op - 0x84;
        const items: Item[] = [];
        for (let i = 0; i < n; i++) items.unshift(pop());
        tuple(items);
        break;
      }
      case 0x5d: // EMPTY_LIST
        push([]);
        break;
      case 0x7d: // EMPTY_DICT
        push(new Map());
        break;
      case 0x61: // APPEND
      case 0x65: {
        // APPENDS
        const items = op === 0x61 ? [pop()] : popMark();
        const list = stack.at(-1);
        if (!Array.isArray(list)) fail('pickle APPEND to a non-list');
        for (const item of items) (list as TorchValue[]).push(data(item));
        break;
      }
      case 0x73: {
        // SETITEM
        const value = pop();
        const key = pop();
        setItems([key, value]);
        break;
      }
      case 0x75: // SETITEMS
        setItems(popMark());
        break;
      case 0x4e:
        push(null);
        break;
      case 0x88:
        push(true);
        break;
      case 0x89:
        push(false);
        break;
      case 0x4a:
        push(input.i32());
        break;
      case 0x4b:
        push(input.u8());
        break;
      case 0x4d:
        push(input.u16());
        break;
      case 0x8a: {
        const value = input.long(input.u8());
        push(typeof value === 'bigint' ? fail('integer beyond 2^53 in pickle') : value);
        break;
      }
      case 0x47:
        push(input.f64be());
        break;
      case 0x58:
        push(input.utf8(input.u32()));
        break;
      case 0x8c:
        push(input.utf8(input.u8()));
        break;
      case 0x63: // GLOBAL
        push(resolve(input.line(), input.line(), file));
        break;
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') fail('bad STACK_GLOBAL');
        push(resolve(module as string, name as string, file));
        break;
      }
      case 0x51: // BINPERSID
        push(persistent(pop(), storage, fail));
        break;
      case 0x52: {
        // REDUCE
        const args = pop();
        const fn = pop();
        push(call(fn, args, fail));
        break;
      }
      case 0x71:
        memoize(input.u8());
        break;
      case 0x72:
        memoize(input.u32());
        break;
      case 0x94:
        memoize(memo.size);
        break;
      case 0x68:
        recall(input.u8());
        break;
      case 0x6a:
        recall(input.u32());
        break;
      case 0x30:
        pop();
        break;
      case 0x2e: // STOP
        return data(pop());
      default:
        fail(`unsupported pickle opcode 0x${op.toString(16).padStart(2, '0')}`);
    }
  }
}

/** `('storage', torch.FloatStorage, key, location, numel)` -> the storage's bytes. */
function persistent(
  pid: Item,
  storage: (key: string) => Uint8Array | undefined,
  fail: (why: string) => never,
): Storage {
  const items =
    typeof pid === 'object' && pid !== null && 'kind' in pid && pid.kind === 'tuple'
      ? pid.items
      : [];
  const [tag, type, key, , count] = items as Item[];
  if (
    tag !== 'storage' ||
    !(type instanceof Callable) ||
    type.name !== 'storage' ||
    typeof key !== 'string' ||
    typeof count !== 'number'
  )
    return fail('unsupported persistent id (expected a tensor storage)');
  const bytes = storage(key) ?? fail(`storage data/${key} is missing from the archive`);
  const needed = count * DTYPE_SIZE[type.dtype!];
  if (bytes.byteLength < needed)
    fail(`storage data/${key} holds ${bytes.byteLength} of ${needed} bytes`);
  return new Storage(type.dtype!, bytes.subarray(0, needed));
}

function call(fn: Item, args: Item, fail: (why: string) => never): Item {
  if (!(fn instanceof Callable)) return fail('pickle REDUCE on a non-callable');
  const items =
    typeof args === 'object' && args !== null && 'kind' in args && args.kind === 'tuple'
      ? (args.items as Item[])
      : fail('pickle REDUCE arguments are not a tuple');
  if (fn.name === 'ordered-dict') return new Map();
  if (fn.name !== 'rebuild') return fail('a storage class called directly');
  const [storage, offset, size, stride] = items;
  if (!(storage instanceof Storage) || typeof offset !== 'number')
    return fail('bad tensor arguments');
  const shape = intTuple(size, fail);
  const strides = intTuple(stride, fail);
  // Contiguity: PLAID's files are written from contiguous tensors; views are refused.
  let expected = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d]! > 1 && strides[d] !== expected)
      fail('non-contiguous tensor (save a .contiguous() copy)');
    expected *= shape[d]!;
  }
  const width = DTYPE_SIZE[storage.dtype];
  const start = offset * width;
  const length = numel(shape) * width;
  if (start + length > storage.bytes.byteLength) fail('tensor extends beyond its storage');
  const tensor: Tensor = {
    kind: 'tensor',
    dtype: storage.dtype,
    shape,
    bytes: storage.bytes.subarray(start, start + length),
  };
  return tensor;
}

function intTuple(value: Item | undefined, fail: (why: string) => never): number[] {
  const items =
    typeof value === 'object' && value !== null && 'kind' in value && value.kind === 'tuple'
      ? value.items
      : undefined;
  if (!items || !items.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0))
    return fail('bad tensor size or stride');
  return items as number[];
}
