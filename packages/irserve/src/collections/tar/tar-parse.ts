/**
 * Lists the regular-file members of a plain `.tar` (ustar, GNU long names, pax `path`/`size`)
 * with their data offsets, reading headers with positioned reads through a 1 MiB window.
 */
import type { FileHandle } from 'node:fs/promises';
import { readExactly } from '../readers/read-line.js';

export interface TarMember {
  name: string;
  /** Byte offset of the member's data in the tar file. */
  offset: number;
  size: number;
}

const BLOCK = 512;
const WINDOW = 1024 * 1024;

function cString(block: Buffer, start: number, length: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end < 0 || end > start + length ? start + length : end);
}

function numberField(block: Buffer, start: number, length: number): number {
  if (block[start]! & 0x80) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    return value;
  }
  const text = cString(block, start, length).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === numberField(block, 148, 8);
}

/** Pax records `"<len> key=value\n"`. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space < 0) break;
    const length = parseInt(data.toString('latin1', pos, space), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.toString('utf8', space + 1, pos + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    pos += length;
  }
  return out;
}

class Window {
  #buf: Buffer = Buffer.alloc(0);
  #start = 0;
  constructor(readonly handle: FileHandle) {}

  async read(position: number, length: number): Promise<Buffer> {
    if (position < this.#start || position + length > this.#start + this.#buf.length) {
      this.#start = position;
      this.#buf = await readExactly(this.handle, position, Math.max(WINDOW, length));
    }
    const from = position - this.#start;
    return this.#buf.subarray(from, Math.min(from + length, this.#buf.length));
  }
}

/** Every regular file in the tar, in archive order (a later member of the same name wins). */
export async function listTarMembers(handle: FileHandle, path: string): Promise<TarMember[]> {
  const window = new Window(handle);
  const members: TarMember[] = [];
  let pos = 0;
  let longName: string | undefined;
  let pax = new Map<string, string>();
  for (;;) {
    const block = Buffer.from(await window.read(pos, BLOCK));
    if (block.length < BLOCK || block.every((b) => b === 0)) break;
    if (!checksumOk(block))
      throw new Error(`${path}: not a tar file (bad header checksum at byte ${pos})`);
    const type = String.fromCharCode(block[156]!);
    const paxSize = type === 'x' || type === 'L' ? undefined : pax.get('size');
    const size = paxSize !== undefined ? Number(paxSize) : numberField(block, 124, 12);
    const dataAt = pos + BLOCK;
    pos = dataAt + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') longName = cString(await window.read(dataAt, size), 0, size);
    else if (type === 'x') pax = paxRecords(Buffer.from(await window.read(dataAt, size)));
    else if (type === '0' || type === '\0' || type === '7') {
      const prefix = block.toString('latin1', 257, 262) === 'ustar' ? cString(block, 345, 155) : '';
      const plain = prefix ? `${prefix}/${cString(block, 0, 100)}` : cString(block, 0, 100);
      members.push({ name: pax.get('path') ?? longName ?? plain, offset: dataAt, size });
    }
    if (type !== 'L' && type !== 'x' && type !== 'g' && type !== 'K') {
      longName = undefined;
      pax = new Map();
    }
  }
  return members;
}
