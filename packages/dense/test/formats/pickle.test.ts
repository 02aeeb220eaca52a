import { describe, expect, test } from 'vitest';
import { readPickle } from '../../src/formats/index.js';

const X300 = '78'.repeat(300);
/** pickle.dumps(SAMPLE_VALUE, protocol=p).hex() from CPython 3.11, with 'x' * 300 folded. */
const SAMPLES: Record<number, string> = {
  2: [
    '80027d71002858010000006171015d7102284b014ad4feffff4a701101004740040000000000004e',
    '88894b014b02867103580300000078c3a97104635f636f646563730a656e636f64650a7105580100',
    '000079710658060000006c6174696e317107867108527109635f5f6275696c74696e5f5f0a736574',
    '0a710a5d710b4b036185710c52710d635f5f6275696c74696e5f5f0a66726f7a656e7365740a710e',
    '5d710f4b04618571105271118a090000000000000000408a090000000000000000c0635f5f627569',
    '6c74696e5f5f0a6279746561727261790a7112680558010000007a71136807867114527115857116',
    '527117655801000000627118582c010000',
    X300,
    '7119752e',
  ].join(''),
  3: [
    '80037d71002858010000006171015d7102284b014ad4feffff4a701101004740040000000000004e',
    '88894b014b02867103580300000078c3a971044301797105636275696c74696e730a7365740a7106',
    '5d71074b0361857108527109636275696c74696e730a66726f7a656e7365740a710a5d710b4b0461',
    '85710c52710d8a090000000000000000408a090000000000000000c0636275696c74696e730a6279',
    '746561727261790a710e43017a710f857110527111655801000000627112582c010000',
    X300,
    '7113752e',
  ].join(''),
  4: [
    '800495ad010000000000007d94288c0161945d94284b014ad4feffff4a7011010047400400000000',
    '00004e88894b014b0286948c0378c3a994430179948f94284b0390284b0491948a09000000000000',
    '0000408a090000000000000000c08c086275696c74696e73948c0962797465617272617994939443',
    '017a9485945294658c016294582c010000',
    X300,
    '94752e',
  ].join(''),
  5: [
    '80059597010000000000007d94288c0161945d94284b014ad4feffff4a7011010047400400000000',
    '00004e88894b014b0286948c0378c3a994430179948f94284b0390284b0491948a09000000000000',
    '0000408a090000000000000000c09601000000000000007a94658c016294582c010000',
    X300,
    '94752e',
  ].join(''),
};

const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(
    Buffer.concat(
      parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))),
    ),
  );
const read = (data: Uint8Array) => () => readPickle(data, 'evil.npy');

describe('readPickle on CPython pickles', () => {
  test.each([2, 3, 4, 5])(
    'protocol %i: containers, scalars, strings, bytes, big ints',
    (protocol) => {
      const value = readPickle(hex(SAMPLES[protocol]!));
      expect(value).toBeInstanceOf(Map);
      const dict = value as Map<string, unknown>;
      expect(dict.get('b')).toBe('x'.repeat(300));
      const list = dict.get('a') as unknown[];
      expect(list.slice(0, 7)).toEqual([1, -300, 70000, 2.5, null, true, false]);
      expect(list[7]).toEqual({ kind: 'tuple', items: [1, 2] });
      expect(list[8]).toBe('xé');
      expect(list[9]).toEqual(new Uint8Array([0x79]));
      expect(list[10]).toEqual(new Set([3]));
      expect(list[11]).toEqual(new Set([4]));
      expect(list[12]).toBe(2n ** 70n);
      expect(list[13]).toBe(-(2n ** 70n));
      expect(list[14]).toEqual(new Uint8Array([0x7a]));
    },
  );
});

describe('hostile pickles fail cleanly, naming the file, executing nothing', () => {
  test('a disallowed GLOBAL names the global and the allow-list', () => {
    expect(read(bytes([0x80, 2], 'cos\nsystem\n', [0x8c, 2], 'id', [0x85, 0x52, 0x2e]))).toThrow(
      /evil\.npy: pickle global os\.system is not allowed \(allowed: numpy\.core\.multiarray\._reconstruct/,
    );
  });
  test('a disallowed STACK_GLOBAL', () => {
    const data = bytes([0x80, 4, 0x8c, 8], 'builtins', [0x8c, 4], 'eval', [0x93, 0x2e]);
    expect(read(data)).toThrow(/pickle global builtins\.eval is not allowed/);
  });
  test('opcodes outside the subset (INST, OBJ, NEWOBJ, PERSID, EXT1)', () => {
    for (const op of [0x69, 0x6f, 0x81, 0x50, 0x82]) {
      expect(read(bytes([0x80, 2, op, 0x2e]))).toThrow(/evil\.npy: unsupported pickle opcode/);
    }
  });
  test('out-of-band buffers', () => {
    expect(read(bytes([0x80, 5, 0x97, 0x2e]))).toThrow(/out-of-band buffers are not supported/);
  });
  test('lengths beyond the input', () => {
    expect(read(bytes([0x80, 4, 0x58, 0xff, 0xff, 0xff, 0xff], 'x'))).toThrow(/truncated pickle/);
    expect(read(bytes([0x80, 4, 0x8e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toThrow(
      /truncated pickle/,
    );
    expect(read(bytes([0x80, 4, 0x95, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]))).toThrow(
      /truncated pickle frame/,
    );
  });
  test('no STOP, stack underflow, missing memo, missing MARK', () => {
    expect(read(bytes([0x80, 2, 0x4e]))).toThrow(/truncated pickle: no STOP/);
    expect(read(bytes([0x80, 2, 0x30, 0x2e]))).toThrow(/pickle stack underflow/);
    expect(read(bytes([0x80, 2, 0x68, 7, 0x2e]))).toThrow(/pickle memo key 7 missing/);
    expect(read(bytes([0x80, 2, 0x74, 0x2e]))).toThrow(/pickle MARK missing/);
  });
  test('MARK nesting and huge integers are bounded', () => {
    expect(read(bytes([0x80, 2], '('.repeat(10_000), '.'))).toThrow(/marks nested too deep/);
    expect(read(bytes([0x80, 2, 0x8b, 0, 0, 0, 1], '.'))).toThrow(
      /integer of 16777216 bytes is too large/,
    );
  });
  test('REDUCE on data, BUILD on data, a global used as data', () => {
    expect(read(bytes([0x80, 2, 0x4e, 0x29, 0x52, 0x2e]))).toThrow(/REDUCE on a non-callable/);
    expect(read(bytes([0x80, 2, 0x5d, 0x4e, 0x62, 0x2e]))).toThrow(
      /BUILD on an object other than an ndarray/,
    );
    expect(read(bytes([0x80, 2], 'cnumpy\nndarray\n', '.'))).toThrow(
      /global numpy\.ndarray used as a value/,
    );
    expect(read(bytes([0x80, 2, 0x5d], 'cnumpy\ndtype\n', [0x61, 0x2e]))).toThrow(
      /used as a value/,
    );
  });
  test('allowed globals with the wrong arguments', () => {
    const reconstruct = 'cnumpy.core.multiarray\n_reconstruct\n';
    expect(read(bytes([0x80, 2], reconstruct, [0x4e, 0x85, 0x52, 0x2e]))).toThrow(
      /unexpected arguments to numpy\.core\.multiarray\._reconstruct/,
    );
    expect(
      read(
        bytes(
          [0x80, 2],
          'c_codecs\nencode\n',
          [0x8c, 1],
          'x',
          [0x8c, 4],
          'utf8',
          [0x86, 0x52, 0x2e],
        ),
      ),
    ).toThrow(/unexpected arguments to _codecs\.encode/);
  });
  test('a self-referencing list does not hang', () => {
    // EMPTY_LIST, MEMOIZE, MARK, GET 0, DUP, APPENDS, STOP: l = [l, l]
    const value = readPickle(
      bytes([0x80, 4, 0x5d, 0x94, 0x28, 0x68, 0, 0x32, 0x65, 0x2e]),
    ) as unknown[];
    expect(value.length).toBe(2);
    expect(value[0]).toBe(value);
  });
  test('random bytes never hang and only ever throw FormatErrors', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 500; round++) {
      const data = Uint8Array.from({ length: 64 }, () => Math.floor(random() * 256));
      data[0] = 0x80;
      data[1] = 4;
      try {
        readPickle(data, 'fuzz');
      } catch (error) {
        expect((error as Error).name).toBe('FormatError');
      }
    }
  });
});
