/**
 * `.pt` files as `torch.save` writes them since PyTorch 1.6: a zip archive holding
 * `<name>/data.pkl`, `<name>/data/<key>` raw storages and `<name>/byteorder`. Tensors come back
 * as views of the file's buffer, so a 2 GB residual chunk occupies 2 GB, not 4.
 */
import { FormatError, readWhole } from '@irserve/dense';
import { readTorchPickle, type TorchValue } from './torch-pickle.js';
import { readZipMembers } from './zip-archive.js';

/** Parses the bytes of a `.pt` file. `file` labels errors. */
export function parseTorchFile(bytes: Uint8Array, file: string): TorchValue {
  if (bytes.byteLength >= 2 && bytes[0] === 0x80 && bytes[1]! <= 5)
    throw new FormatError(
      file,
      'a legacy (pre-1.6, non-zip) torch.save file; re-save it with a current PyTorch',
    );
  const members = readZipMembers(bytes, file);
  const pickleName = [...members.keys()].find((name) => /^[^/]+\/data\.pkl$/.test(name));
  if (pickleName === undefined)
    throw new FormatError(file, 'not a PyTorch archive: no <name>/data.pkl member');
  const prefix = pickleName.slice(0, -'data.pkl'.length);
  const order = members.get(`${prefix}byteorder`);
  if (order && new TextDecoder().decode(order) !== 'little')
    throw new FormatError(file, 'big-endian tensors are not supported');
  return readTorchPickle(
    members.get(pickleName)!,
    (key) => members.get(`${prefix}data/${key}`),
    file,
  );
}

/**
 * Reads a `.pt` file written by `torch.save`.
 *
 * @example const centroids = await readTorchFile('index/centroids.pt') // a Tensor
 */
export async function readTorchFile(path: string): Promise<TorchValue> {
  return parseTorchFile(await readWhole(path), path);
}
