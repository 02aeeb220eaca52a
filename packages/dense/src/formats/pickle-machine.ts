/**
 * The state of the pickle reader while one pickle runs (stack, marks, memo) and the checked
 * operations its opcode handlers (pickle-opcodes.ts) perform on it.
 */
import { FormatError } from './errors.js';
import type { Realign } from './dtype.js';
import type { PickleCursor } from './pickle-cursor.js';
import { callGlobal, DtypeBox, Global, build, isTuple, type Value } from './pickle-numpy.js';
import type { PickleDict, PickleValue } from './types.js';

/** Bounds that no numpy pickle approaches but that keep hostile input from exhausting memory. */
const LIMITS = { stack: 1 << 24, memo: 1 << 24, marks: 1 << 12 };

/** The machine's state while one pickle runs. */
export class Machine {
  readonly stack: Value[] = [];
  readonly marks: number[] = [];
  readonly memo = new Map<number, Value>();
  readonly pending = new WeakSet<object>();
  /** Tuples holding a global or a dtype: fine as REDUCE/BUILD operands, never as data. */
  readonly helperTuples = new WeakSet<object>();
  result: Value | undefined;
  constructor(
    readonly input: PickleCursor,
    readonly file: string,
    readonly realign?: Realign,
  ) {}

  fail(reason: string): never {
    throw new FormatError(this.file, `${reason} (pickle byte ${this.input.at})`);
  }

  push(value: Value): void {
    if (this.stack.length >= LIMITS.stack) this.fail('pickle stack too deep');
    this.stack.push(value);
  }

  pop(): Value {
    if (this.stack.length <= (this.marks.at(-1) ?? 0)) this.fail('pickle stack underflow');
    return this.stack.pop()!;
  }

  top(): Value {
    if (this.stack.length <= (this.marks.at(-1) ?? 0)) this.fail('pickle stack underflow');
    return this.stack[this.stack.length - 1]!;
  }

  mark(): void {
    if (this.marks.length >= LIMITS.marks) this.fail('pickle marks nested too deep');
    this.marks.push(this.stack.length);
  }

  /** Pops everything above the last MARK, and the mark. */
  popMark(): Value[] {
    const at = this.marks.pop();
    if (at === undefined) this.fail('pickle MARK missing');
    return this.stack.splice(at);
  }

  /** A value about to be stored as data: the callable-side helpers must not escape. */
  data(value: Value): PickleValue {
    if (value instanceof Global) this.fail(`pickle global ${value.qualified} used as a value`);
    if (value instanceof DtypeBox) this.fail('numpy.dtype objects are not supported as values');
    if (isTuple(value) && this.helperTuples.has(value))
      this.fail('pickle tuple of callables used as a value');
    return value;
  }

  memoize(index: number): void {
    if (this.memo.size >= LIMITS.memo && !this.memo.has(index)) this.fail('pickle memo too large');
    this.memo.set(index, this.top());
  }

  recall(index: number): void {
    const value = this.memo.get(index);
    if (value === undefined) this.fail(`pickle memo key ${index} missing`);
    this.push(value);
  }

  list(): PickleValue[] {
    const list = this.top();
    if (!Array.isArray(list)) this.fail('pickle APPEND to a non-list');
    return list;
  }

  dict(): PickleDict {
    const dict = this.top();
    if (!(dict instanceof Map)) this.fail('pickle SETITEM on a non-dict');
    return dict;
  }

  setItems(pairs: Value[]): void {
    const target = this.dict();
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const key = pairs[i]!;
      if (key !== null && typeof key === 'object') this.fail('unsupported pickle dict key type');
      target.set(key, this.data(pairs[i + 1]!));
    }
  }

  reduce(): void {
    const args = this.pop();
    const fn = this.pop();
    if (!(fn instanceof Global)) this.fail('pickle REDUCE on a non-callable');
    if (!isTuple(args)) this.fail('pickle REDUCE arguments are not a tuple');
    this.push(callGlobal(fn, args.items, this.file, this.pending, this.realign));
  }

  build(): void {
    const state = this.pop();
    build(this.top(), state, this.file, this.pending, this.realign);
  }

  tuple(items: Value[]): void {
    const helper = items.some(
      (v) =>
        v instanceof Global || v instanceof DtypeBox || (isTuple(v) && this.helperTuples.has(v)),
    );
    // Operands of REDUCE/BUILD may hold helpers; the flag keeps them out of returned data.
    const tuple = { kind: 'tuple' as const, items: items as PickleValue[] };
    if (helper) this.helperTuples.add(tuple);
    this.push(tuple);
  }
}
