/**
 * `@irserve/onnx/formats`: the PyTorch file reader (zip archives and the legacy stream, an
 * allow-listed pickle) that plaidx reads index files with and checkpoints load through. It does
 * not load ONNX Runtime.
 */
export { DTYPE_SIZE, isTensor, numel, type Tensor, type TensorDtype } from './tensor.js';
export {
  readTorchPickle,
  type PickleData,
  type StorageLookup,
  type TensorSlice,
  type TorchValue,
} from './torch-pickle.js';
export { parseTorchFile, readTorchRanges, type TensorRange } from './torch-file.js';
export {
  bufferSource,
  fileSource,
  readZipDirectory,
  readZipMembers,
  type ByteSource,
  type ZipMember,
} from './zip-archive.js';
