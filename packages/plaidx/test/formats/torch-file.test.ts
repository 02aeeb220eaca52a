import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { toFloat32, toInt32 } from '../../src/formats/tensor.js';
import { parseTorchFile, readTorchFile } from '../../src/formats/torch-file.js';
import { isTensor } from '../../src/formats/tensor.js';
import { FIXTURES } from '../helpers.js';

const pt = (name: string) => `${FIXTURES}pt/${name}`;

describe('readTorchFile on files written by torch.save', () => {
  it('reads a float32 tensor as a view of the file', async () => {
    const value = await readTorchFile(pt('tensor.pt'));
    expect(isTensor(value) && value.shape).toEqual([3]);
    if (isTensor(value)) expect(Array.from(toFloat32(value, 'x'))).toEqual([0, 0, 0]);
  });

  it('reads a dict of a tensor, a string and a float', async () => {
    const value = await readTorchFile(pt('dict.pt'));
    expect(value).toBeInstanceOf(Map);
    const map = value as Map<string, unknown>;
    expect(map.get('name')).toBe('x');
    expect(map.get('scale')).toBe(0.5);
    const weights = map.get('weights');
    expect(isTensor(weights) && weights.dtype).toBe('int64');
    if (isTensor(weights)) expect(Array.from(toInt32(weights, 'x'))).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('widens bfloat16', async () => {
    const value = await readTorchFile(pt('bf16.pt'));
    if (!isTensor(value)) throw new Error('not a tensor');
    expect(Array.from(toFloat32(value, 'x'))).toEqual([1.5, -2]);
  });

  it.each([
    ['truncated.pt', /truncated\.pt: not a PyTorch zip archive/],
    ['foreign.pt', /foreign\.pt: not a PyTorch zip archive/],
    ['transposed.pt', /transposed\.pt: non-contiguous tensor/],
  ])('refuses %s naming the file', async (name, message) => {
    await expect(readTorchFile(pt(name))).rejects.toThrow(message);
  });

  it('refuses a legacy (non-zip) pickle and a pickle calling a foreign global', async () => {
    expect(() => parseTorchFile(new Uint8Array([0x80, 0x02, 0x8a, 0x0a]), 'old.pt')).toThrow(
      /legacy/,
    );
    const bytes = new Uint8Array(await readFile(pt('tensor.pt')));
    // Rewrite the allowed global's module name into one that is not allowed (same length).
    const text = Buffer.from(bytes).toString('latin1').replace('torch._utils', 'os.system.xx');
    expect(() => parseTorchFile(Buffer.from(text, 'latin1'), 'evil.pt')).toThrow(
      /os\.system\.xx\._rebuild_tensor_v2 is not allowed/,
    );
  });
});
