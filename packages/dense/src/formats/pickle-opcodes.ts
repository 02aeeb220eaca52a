/**
 * The pickle opcodes numpy's pickles use (protocols 2-5), as a table from opcode to handler.
 * Anything absent (INST, OBJ, NEWOBJ, EXT*, PERSID, out-of-band buffers...) is rejected.
 */
import { resolveGlobal } from './pickle-numpy.js';
import type { Machine } from './pickle-machine.js';

type Handler = (m: Machine) => void;

const op = (c: string): number => c.charCodeAt(0);

function stackGlobal(m: Machine): void {
  const name = m.pop();
  const module = m.pop();
  if (typeof module !== 'string' || typeof name !== 'string')
    m.fail('pickle STACK_GLOBAL operands are not strings');
  m.push(resolveGlobal(module, name, m.file));
}

function textGlobal(m: Machine): void {
  const module = m.input.line();
  const name = m.input.line();
  m.push(resolveGlobal(module, name, m.file));
}

function textIndex(m: Machine): number {
  const index = Number(m.input.line());
  if (!Number.isSafeInteger(index) || index < 0) m.fail('bad pickle memo key');
  return index;
}

function proto(m: Machine): void {
  const version = m.input.u8();
  if (version > 5) m.fail(`unsupported pickle protocol ${version}`);
}

function frame(m: Machine): void {
  // Frames only group opcodes for buffered I/O; the length is checked, then ignored.
  const length = m.input.u64();
  if (length > m.input.bytes.byteLength - m.input.at) m.fail('truncated pickle frame');
}

function appendOne(m: Machine): void {
  const value = m.data(m.pop());
  m.list().push(value);
}

function appendMany(m: Machine): void {
  const items = m.popMark().map((v) => m.data(v));
  const list = m.list();
  for (const item of items) list.push(item);
}

function addItems(m: Machine): void {
  const items = m.popMark().map((v) => m.data(v));
  const set = m.top();
  if (!(set instanceof Set)) m.fail('pickle ADDITEMS on a non-set');
  for (const item of items) set.add(item);
}

function setItem(m: Machine): void {
  const value = m.pop();
  const key = m.pop();
  m.setItems([key, value]);
}

function dictFromMark(m: Machine): void {
  const items = m.popMark();
  m.push(new Map());
  m.setItems(items);
}

function unsupportedBuffer(m: Machine): void {
  m.fail('pickle out-of-band buffers are not supported');
}

function tupleN(n: number): Handler {
  return (m) => {
    const items = [];
    for (let i = 0; i < n; i++) items.unshift(m.pop());
    m.tuple(items);
  };
}

/** Opcode -> handler. Built once at import; it is a constant table, never mutated. */
export const OPCODES: ReadonlyMap<number, Handler> = new Map<number, Handler>([
  [0x80, proto],
  [0x95, frame],
  [op('('), (m) => m.mark()],
  [op(')'), (m) => m.tuple([])],
  [op(']'), (m) => m.push([])],
  [op('}'), (m) => m.push(new Map())],
  [0x8f, (m) => m.push(new Set())],
  [op('t'), (m) => m.tuple(m.popMark())],
  [0x85, tupleN(1)],
  [0x86, tupleN(2)],
  [0x87, tupleN(3)],
  [op('l'), (m) => m.push(m.popMark().map((v) => m.data(v)))],
  [op('d'), dictFromMark],
  [op('a'), appendOne],
  [op('e'), appendMany],
  [op('s'), setItem],
  [op('u'), (m) => m.setItems(m.popMark())],
  [0x90, addItems],
  [0x91, (m) => m.push(new Set(m.popMark().map((v) => m.data(v))))],
  [op('N'), (m) => m.push(null)],
  [0x88, (m) => m.push(true)],
  [0x89, (m) => m.push(false)],
  [op('J'), (m) => m.push(m.input.i32())],
  [op('K'), (m) => m.push(m.input.u8())],
  [op('M'), (m) => m.push(m.input.u16())],
  [0x8a, (m) => m.push(m.input.long(m.input.u8()))],
  [0x8b, (m) => m.push(m.input.long(m.input.i32()))],
  [op('G'), (m) => m.push(m.input.f64be())],
  [0x8c, (m) => m.push(m.input.utf8(m.input.u8()))],
  [op('X'), (m) => m.push(m.input.utf8(m.input.u32()))],
  [0x8d, (m) => m.push(m.input.utf8(m.input.u64()))],
  [op('U'), (m) => m.push(m.input.latin1(m.input.u8()))],
  [op('T'), (m) => m.push(m.input.latin1(m.input.i32()))],
  [op('C'), (m) => m.push(m.input.take(m.input.u8()))],
  [op('B'), (m) => m.push(m.input.take(m.input.u32()))],
  [0x8e, (m) => m.push(m.input.take(m.input.u64()))],
  // bytearray: a view like bytes; nothing here writes to it.
  [0x96, (m) => m.push(m.input.take(m.input.u64()))],
  [op('c'), textGlobal],
  [0x93, stackGlobal],
  [op('R'), (m) => m.reduce()],
  [op('b'), (m) => m.build()],
  [op('q'), (m) => m.memoize(m.input.u8())],
  [op('r'), (m) => m.memoize(m.input.u32())],
  [0x94, (m) => m.memoize(m.memo.size)],
  [op('p'), (m) => m.memoize(textIndex(m))],
  [op('h'), (m) => m.recall(m.input.u8())],
  [op('j'), (m) => m.recall(m.input.u32())],
  [op('g'), (m) => m.recall(textIndex(m))],
  [op('0'), (m) => void m.pop()],
  [op('1'), (m) => void m.popMark()],
  [op('2'), (m) => m.push(m.top())],
  [0x97, unsupportedBuffer],
  [0x98, unsupportedBuffer],
  [op('.'), (m) => (m.result = m.pop())],
]);
