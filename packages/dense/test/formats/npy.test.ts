import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FormatError, parseNpy, readNpy, writeNpy } from '../../src/formats/index.js';
import { expected, fixture, num, tempDir } from './helpers.js';

const EXPECTED = expected<Record<string, { shape: number[]; data: (number | string)[] }>>(
  'npy',
  'npy-expected.json',
);

describe('readNpy on numpy-written files', () => {
  test.each(Object.keys(EXPECTED))('%s', async (name) => {
    const array = await readNpy(fixture('npy', `${name}.npy`));
    const want = EXPECTED[name]!;
    expect(array.shape).toEqual(want.shape);
    if (array.kind === 'float') {
      expect(Array.from(array.data)).toEqual(want.data.map((v) => Math.fround(num(v))));
    } else {
      expect(Array.from(array.data as ArrayLike<unknown>)).toEqual(want.data);
    }
  });

  test('dtypes are reported', async () => {
    expect((await readNpy(fixture('npy', 'f16-special.npy'))).kind === 'float').toBe(true);
    const i64 = await readNpy(fixture('npy', 'i64.npy'));
    expect(i64.kind === 'int' && i64.dtype).toBe('int64');
    const text = await readNpy(fixture('npy', 'unicode.npy'));
    expect(text.kind === 'string' && text.dtype).toBe('unicode');
  });

  test('float16 subnormals, infinities, NaN and negative zero decode exactly', async () => {
    const array = await readNpy(fixture('npy', 'f16-special.npy'));
    const data = Array.from(array.data as Float32Array);
    expect(Object.is(data[1], -0)).toBe(true);
    expect(data[5]).toBe(2 ** -24); // smallest subnormal
    expect(data.slice(8, 11)).toEqual([Infinity, -Infinity, NaN]);
  });
});

describe('writeNpy', () => {
  const dir = tempDir();

  test('float32 round trip', async () => {
    const path = join(dir, 'f32.npy');
    await writeNpy(path, new Float32Array([1, 2.5, -3, 4, 5, 6]), [2, 3]);
    const array = await readNpy(path);
    expect(array).toMatchObject({ kind: 'float', dtype: 'float32', shape: [2, 3] });
    expect(Array.from(array.data as Float32Array)).toEqual([1, 2.5, -3, 4, 5, 6]);
    expect(readFileSync(path).byteLength % 64).toBe((6 * 4) % 64); // header padded to 64 bytes
  });

  test('float16 from a Float32Array rounds like numpy', async () => {
    const path = join(dir, 'f16.npy');
    await writeNpy(path, new Float32Array([1 / 3, 65504, 1e-7, 70000]), [4], { dtype: 'float16' });
    const array = await readNpy(path);
    expect(array).toMatchObject({ kind: 'float', dtype: 'float16', shape: [4] });
    expect(Array.from(array.data as Float32Array)).toEqual([
      0.333251953125,
      65504,
      1.1920928955078125e-7,
      Infinity,
    ]);
  });

  test('unicode strings round trip, astral characters included', async () => {
    const path = join(dir, 'u.npy');
    const values = ['doc-1', 'héllo', '😀', ''];
    await writeNpy(path, values, [4]);
    expect(await readNpy(path)).toMatchObject({ kind: 'string', dtype: 'unicode', data: values });
  });

  test('a shape that does not match the data is refused', async () => {
    await expect(writeNpy(join(dir, 'bad.npy'), new Float32Array(5), [2, 3])).rejects.toThrow(
      /does not match/,
    );
  });
});

describe('bad .npy files fail with the file named', () => {
  const good = readFileSync(fixture('npy', 'f32-c.npy'));
  const parse = (bytes: Uint8Array) => () => parseNpy(bytes, 'x.npy');

  test('bad magic', () => {
    expect(parse(Buffer.from('PK\x03\x04 not numpy at all'))).toThrow(
      /x\.npy: not a \.npy file \(bad magic\)/,
    );
  });
  test('truncated header and data', () => {
    expect(parse(good.subarray(0, 30))).toThrow(/x\.npy: truncated \.npy header/);
    expect(parse(good.subarray(0, good.byteLength - 1))).toThrow(/x\.npy: truncated \.npy data/);
  });
  test('oversized header', () => {
    const bytes = Buffer.alloc(16);
    Buffer.from('\x93NUMPY\x02\x00', 'latin1').copy(bytes);
    bytes.writeUInt32LE(0x7fffffff, 8);
    expect(parse(bytes)).toThrow(/header of 2147483647 bytes exceeds/);
  });
  test('unknown version', () => {
    const bytes = Buffer.from(good);
    bytes[6] = 9;
    expect(parse(bytes)).toThrow(/unsupported \.npy version 9/);
  });
  test('a header that is not a literal dict, or lacks keys', () => {
    const withHeader = (text: string) => {
      const header = Buffer.from(text.padEnd(118) + '\n', 'latin1');
      return Buffer.concat([
        Buffer.from('\x93NUMPY\x01\x00', 'latin1'),
        Buffer.from([119, 0]),
        header,
      ]);
    };
    expect(parse(withHeader("__import__('os').system('x')"))).toThrow(/bad npy header/);
    expect(parse(withHeader("{'descr': '<f4', 'shape': (1,), }"))).toThrow(/fortran_order/);
    expect(
      parse(withHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }")),
    ).toThrow(/structured dtypes/);
    expect(parse(withHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"))).toThrow(
      /unsupported dtype "<c8"/,
    );
    expect(parse(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"))).toThrow(
      /bad array shape/,
    );
    expect(parse(withHeader('('.repeat(30)))).toThrow(/nesting too deep/);
  });
  test('errors are FormatErrors carrying the file', async () => {
    const dir = tempDir();
    const path = join(dir, 'broken.npy');
    writeFileSync(path, 'nope');
    const error = await readNpy(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).file).toBe(path);
  });
});
