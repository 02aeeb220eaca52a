/**
 * `.pt` files of a PLAID index, read whole (the reader is @irserve/onnx's): tensors come back as
 * views of the file's buffer, so a 2 GB residual chunk occupies 2 GB, not 4.
 */
import { readWhole } from '@irserve/dense';
import { parseTorchFile, type TorchValue } from '@irserve/onnx/formats';

export { parseTorchFile };

/**
 * Reads a `.pt` file written by `torch.save`.
 *
 * @example const centroids = await readTorchFile('index/centroids.pt') // a Tensor
 */
export async function readTorchFile(path: string): Promise<TorchValue> {
  return parseTorchFile(await readWhole(path), path);
}
