/**
 * RoutIR's first proto sent a `ScoreRequest`'s passages as `repeated string` in field 3; the
 * current one (and irserve's) sends `repeated Passage`. Both use wire type 2, so one reader can
 * take both: a field-3 value shaped like a Passage is one; any other value is a UTF-8 string and
 * is rewrapped as `Passage{text}` before the normal decoder runs.
 */
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { Logger } from 'pino';

interface Cursor {
  bytes: Uint8Array;
  pos: number;
}

function varint(c: Cursor): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (c.pos >= c.bytes.length) throw new RangeError('truncated varint');
    const byte = c.bytes[c.pos++]!;
    result += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return result;
    shift += 7;
    if (shift > 49) throw new RangeError('varint too long');
  }
}

/** Skips one field's value of wire type `wire`; returns the [start, end) of a length-delimited one. */
function skip(c: Cursor, wire: number): [number, number] | undefined {
  if (wire === 0) varint(c);
  else if (wire === 1) c.pos += 8;
  else if (wire === 5) c.pos += 4;
  else if (wire === 2) {
    const length = varint(c);
    const start = c.pos;
    c.pos += length;
    if (c.pos > c.bytes.length) throw new RangeError('truncated field');
    return [start, c.pos];
  } else throw new RangeError(`unsupported wire type ${wire}`);
  if (c.pos > c.bytes.length) throw new RangeError('truncated field');
  return undefined;
}

/** Whether `bytes` parse as a Passage: fields 1 (text) or 2 (bytes), length-delimited, exactly. */
function isPassage(bytes: Uint8Array): boolean {
  const c: Cursor = { bytes, pos: 0 };
  try {
    while (c.pos < bytes.length) {
      const tag = varint(c);
      if (tag !== 0x0a && tag !== 0x12) return false;
      skip(c, 2);
    }
    // An empty value is an empty Passage (refused: no value set), as the current proto reads it.
    return true;
  } catch {
    return false;
  }
}

function lengthPrefix(length: number): number[] {
  const out: number[] = [];
  let n = length;
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** `bytes` with each field-3 value that is not a Passage rewrapped as `Passage{text}`; itself when none. */
export function upgradeLegacyScore(bytes: Uint8Array): Uint8Array {
  const c: Cursor = { bytes, pos: 0 };
  const parts: Uint8Array[] = [];
  let copied = 0;
  let changed = false;
  while (c.pos < bytes.length) {
    const fieldStart = c.pos;
    const tag = varint(c);
    const range = skip(c, tag & 7);
    if (tag !== 0x1a || range === undefined) continue;
    const value = bytes.subarray(range[0], range[1]);
    if (isPassage(value)) continue;
    // Field 3 as a string: `1a <len> 0a <len> <utf-8>`.
    const inner = [0x0a, ...lengthPrefix(value.length)];
    parts.push(bytes.subarray(copied, fieldStart));
    parts.push(Uint8Array.from([0x1a, ...lengthPrefix(inner.length + value.length), ...inner]));
    parts.push(value);
    copied = range[1];
    changed = true;
  }
  if (!changed) return bytes;
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts);
}

/** The upgraded request, or `bytes` as they are when they do not even walk as protobuf. */
function upgradedOrSame(bytes: Buffer): Buffer {
  try {
    const upgraded = upgradeLegacyScore(bytes);
    return upgraded === bytes ? bytes : Buffer.from(upgraded);
  } catch {
    return bytes; // the normal decoder reports it
  }
}

/** Key of the stand-in message for a request that does not decode (see acceptLegacyMessages). */
export const UNDECODABLE = Symbol('undecodable');

/** The decode error of a stand-in message, or undefined for a real one. */
export function undecodableReason(message: unknown): string | undefined {
  const reason = (message as { [UNDECODABLE]?: unknown } | null)?.[UNDECODABLE];
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * Makes the service's Score decoder read both proto versions. A request that fails to decode
 * is logged and handed to the handler as a stand-in (`undecodableReason` tells), which answers
 * INVALID_ARGUMENT: grpc-js alone would answer INTERNAL without calling any handler.
 *
 * @example
 * acceptLegacyMessages(service, logger); server.addService(service, implementation);
 */
export function acceptLegacyMessages(service: ServiceDefinition, logger: Logger): void {
  for (const [name, method] of Object.entries(service)) {
    const decode = method.requestDeserialize;
    const legacy = name === 'Score';
    method.requestDeserialize = (bytes: Buffer) => {
      try {
        return decode(legacy ? upgradedOrSame(bytes) : bytes);
      } catch (error) {
        logger.warn({ rpc: name, err: error, bytes: bytes.length }, 'gRPC request does not decode');
        return { [UNDECODABLE]: error instanceof Error ? error.message : String(error) };
      }
    };
  }
}
