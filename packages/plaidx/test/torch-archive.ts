/**
 * Writes `.pt` files as `torch.save` (PyTorch 1.13) writes a tuple of 1-D integer tensors: a
 * stored zip archive of `<name>/data.pkl` (pickle protocol 2, `torch._utils._rebuild_tensor_v2`
 * over persistent ids `('storage', torch.LongStorage, key, 'cpu', numel)`), `<name>/byteorder`,
 * `<name>/data/<key>` (each aligned to 64 bytes, as torch aligns them) and `<name>/version`,
 * with ZIP64 records where a size or offset passes 4 GiB. The tensors are given sparsely and
 * written with positioned writes, so the elements not given are holes in the file: a file past
 * 4 GiB costs a few kilobytes of disk. Checked once against `torch.load` (python3-torch 1.13).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { crc32 } from 'node:zlib';

export interface SparseTensor {
  dtype: 'int64' | 'int32';
  numel: number;
  /** Values at element positions; every other element is zero. */
  pieces: { at: number; values: BigInt64Array | Int32Array }[];
}

/** Where each tensor's first element lies in the file written. */
export interface WrittenArchive {
  dataOffsets: number[];
}

const STORAGE = { int64: 'LongStorage', int32: 'IntStorage' } as const;
const WIDTH = { int64: 8, int32: 4 } as const;
const U32_MAX = 0xffffffff;

/** A member: bytes at positions inside its data (the rest zero), its size and CRC-32. */
interface Member {
  name: string;
  size: number;
  pieces: { at: number; bytes: Uint8Array }[];
}

interface Placed extends Member {
  local: number;
  data: number;
  crc: number;
}

/**
 * Writes `tensors` as the tuple `torch.save` would write; `zip64: true` writes ZIP64 records
 * for every member, as a file past 4 GiB has them, even when small.
 *
 * @example await writeTorchTuple('ivf.pid.pt', [values, lengths])
 */
export async function writeTorchTuple(
  path: string,
  tensors: SparseTensor[],
  options: { zip64?: boolean } = {},
): Promise<WrittenArchive> {
  const name = basename(path).replace(/\.[^.]*$/, '');
  const text = (s: string) => new TextEncoder().encode(s);
  const members: Member[] = [
    whole(`${name}/data.pkl`, pickleTuple(tensors)),
    whole(`${name}/byteorder`, text('little')),
    ...tensors.map((t, key) => ({
      name: `${name}/data/${key}`,
      size: t.numel * WIDTH[t.dtype],
      pieces: t.pieces.map(({ at, values }) => ({
        at: at * WIDTH[t.dtype],
        bytes: new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
      })),
    })),
    whole(`${name}/version`, text('3\n')),
  ];
  const handle = await open(path, 'w');
  try {
    const placed: Placed[] = [];
    let at = 0;
    for (const member of members) {
      const written = await writeMember(handle, member, at, options.zip64 === true);
      placed.push(written);
      at = written.data + member.size;
    }
    await writeDirectory(handle, placed, at, options.zip64 === true);
    return { dataOffsets: placed.slice(2, 2 + tensors.length).map((m) => m.data) };
  } finally {
    await handle.close();
  }
}

function whole(name: string, bytes: Uint8Array): Member {
  return { name, size: bytes.length, pieces: [{ at: 0, bytes }] };
}

function needsZip64(member: { size: number }, forced: boolean): boolean {
  return forced || member.size >= U32_MAX;
}

async function writeMember(
  handle: FileHandle,
  member: Member,
  local: number,
  forced: boolean,
): Promise<Placed> {
  const name = new TextEncoder().encode(member.name);
  const zip64 = needsZip64(member, forced) ? fields(0x0001, [member.size, member.size]) : [];
  // torch pads the local extra field ('FB') so that the data starts on a 64-byte boundary.
  const before = local + 30 + name.length + zip64.length + 4;
  const padding = [...le(0x4246, 2), ...le((64 - (before % 64)) % 64, 2)];
  padding.push(...new Array<number>((64 - (before % 64)) % 64).fill(0));
  const extra = [...zip64, ...padding];
  const data = local + 30 + name.length + extra.length;
  const crc = crcOf(member);
  const size = needsZip64(member, forced) ? U32_MAX : member.size;
  const header = [
    ...le(0x04034b50, 4),
    ...le(zip64.length > 0 ? 45 : 20, 2),
    ...le(0, 2), // flags
    ...le(0, 2), // stored
    ...le(0, 2), // time
    ...le(0x21, 2), // date: 1980-01-01
    ...le(crc, 4),
    ...le(size, 4),
    ...le(size, 4),
    ...le(name.length, 2),
    ...le(extra.length, 2),
    ...name,
    ...extra,
  ];
  await handle.write(Uint8Array.from(header), 0, header.length, local);
  for (const piece of member.pieces)
    await handle.write(piece.bytes, 0, piece.bytes.length, data + piece.at);
  return { ...member, local, data, crc };
}

async function writeDirectory(
  handle: FileHandle,
  members: Placed[],
  start: number,
  forced: boolean,
): Promise<void> {
  const out: number[] = [];
  for (const m of members) {
    const name = new TextEncoder().encode(m.name);
    const bigSize = needsZip64(m, forced);
    const bigLocal = forced || m.local >= U32_MAX;
    // ZIP64 extra: the values that overflowed, in this order.
    const wide = [...(bigSize ? [m.size, m.size] : []), ...(bigLocal ? [m.local] : [])];
    const extra = wide.length > 0 ? fields(0x0001, wide) : [];
    out.push(
      ...le(0x02014b50, 4),
      ...le(45, 2), // made by
      ...le(extra.length > 0 ? 45 : 20, 2),
      ...le(0, 2),
      ...le(0, 2),
      ...le(0, 2),
      ...le(0x21, 2),
      ...le(m.crc, 4),
      ...le(bigSize ? U32_MAX : m.size, 4),
      ...le(bigSize ? U32_MAX : m.size, 4),
      ...le(name.length, 2),
      ...le(extra.length, 2),
      ...le(0, 2), // comment
      ...le(0, 2), // disk
      ...le(0, 2), // internal attributes
      ...le(0, 4), // external attributes
      ...le(bigLocal ? U32_MAX : m.local, 4),
      ...name,
      ...extra,
    );
  }
  const size = out.length;
  const zip64 = forced || start >= U32_MAX;
  if (zip64) {
    const record = start + size;
    out.push(...le(0x06064b50, 4), ...le(44, 8), ...le(45, 2), ...le(45, 2), ...le(0, 4));
    out.push(...le(0, 4), ...le(members.length, 8), ...le(members.length, 8));
    out.push(...le(size, 8), ...le(start, 8));
    out.push(...le(0x07064b50, 4), ...le(0, 4), ...le(record, 8), ...le(1, 4));
  }
  out.push(...le(0x06054b50, 4), ...le(0, 2), ...le(0, 2));
  out.push(...le(zip64 ? 0xffff : members.length, 2), ...le(zip64 ? 0xffff : members.length, 2));
  out.push(...le(size, 4), ...le(zip64 ? U32_MAX : start, 4), ...le(0, 2));
  await handle.write(Uint8Array.from(out), 0, out.length, start);
}

/** A ZIP extra field: `id`, then each value as 8 bytes. */
function fields(id: number, values: number[]): number[] {
  return [...le(id, 2), ...le(values.length * 8, 2), ...values.flatMap((v) => le(v, 8))];
}

/** `value` as `bytes` little-endian bytes (safe integers). */
function le(value: number, bytes: number): number[] {
  const out: number[] = [];
  let v = value;
  for (let i = 0; i < bytes; i++) {
    out.push(v % 256);
    v = Math.floor(v / 256);
  }
  return out;
}

/** The CRC-32 of the member's data, its zero runs computed without reading them. */
function crcOf(member: Member): number {
  let crc = 0;
  let at = 0;
  for (const piece of [...member.pieces].sort((a, b) => a.at - b.at)) {
    crc = crcOfZeros(crc, piece.at - at);
    crc = crc32(piece.bytes, crc);
    at = piece.at + piece.bytes.length;
  }
  return crcOfZeros(crc, member.size - at);
}

/** CRC-32 polynomial, bit-reflected. */
const POLY = 0xedb88320;

/** a × b modulo the CRC polynomial (bit-reflected: bit 31 is x^0). */
function multModP(a: number, b: number): number {
  let product = 0;
  let factor = b;
  for (let m = 0x80000000; m !== 0; m >>>= 1) {
    if ((a & m) !== 0) product ^= factor;
    factor = factor & 1 ? (factor >>> 1) ^ POLY : factor >>> 1;
  }
  return product >>> 0;
}

/** The CRC-32 of `crc`'s data followed by `n` zero bytes: the register times x^(8n). */
function crcOfZeros(crc: number, n: number): number {
  let power = 0x40000000; // x^1
  for (let i = 0; i < 3; i++) power = multModP(power, power); // x^8: one byte
  let op = 0x80000000; // x^0
  for (let left = n; left > 0; left = Math.floor(left / 2)) {
    if (left % 2 === 1) op = multModP(power, op);
    power = multModP(power, power);
  }
  return ~multModP(op, ~crc >>> 0) >>> 0;
}

/** The pickle torch.save writes for a tuple of 1-D tensors, storage `i` holding tensor `i`. */
function pickleTuple(tensors: SparseTensor[]): Uint8Array {
  const out: number[] = [0x80, 2, 0x28]; // PROTO 2, MARK
  const ascii = (s: string) => [...new TextEncoder().encode(s)];
  const global = (module: string, name: string) => out.push(0x63, ...ascii(`${module}\n${name}\n`));
  const str = (s: string) => out.push(0x58, ...le(s.length, 4), ...ascii(s)); // BINUNICODE
  const int = (n: number) =>
    n < 2 ** 31 ? out.push(0x4a, ...le(n, 4)) : out.push(0x8a, 8, ...le(n, 8)); // BININT, LONG1
  tensors.forEach((tensor, key) => {
    global('torch._utils', '_rebuild_tensor_v2');
    out.push(0x28, 0x28); // MARK (arguments), MARK (persistent id)
    str('storage');
    global('torch', STORAGE[tensor.dtype]);
    str(String(key));
    str('cpu');
    int(tensor.numel);
    out.push(0x74, 0x51); // TUPLE, BINPERSID
    int(0); // storage offset
    int(tensor.numel);
    out.push(0x85); // TUPLE1: the size
    int(1);
    out.push(0x85, 0x89); // TUPLE1: the stride; NEWFALSE: requires_grad
    global('collections', 'OrderedDict');
    out.push(0x29, 0x52); // EMPTY_TUPLE, REDUCE: the backward hooks
    out.push(0x74, 0x52); // TUPLE, REDUCE: the tensor
  });
  out.push(0x74, 0x2e); // TUPLE, STOP
  return Uint8Array.from(out);
}
