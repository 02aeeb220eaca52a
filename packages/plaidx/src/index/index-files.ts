/**
 * The two on-disk layouts of a PLAID index and how to read each part: ColBERT / PLAID-X's
 * `.pt` files, and next-plaid's `.npy` files (also what irserve-build-plaid-index writes).
 * Both share `metadata.json`, `doclens.N.json` and `N.metadata.json`.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { FormatError } from '@irserve/dense';
import { readInt32Place } from '../formats/int32-place.js';
import { readNpyTensor } from '../formats/npy-tensor.js';
import { npyPlace, torchTuplePlaces } from '../formats/tensor-place.js';
import { isTensor, type Tensor } from '../formats/tensor.js';
import { readTorchFile } from '../formats/torch-file.js';

export type Layout = 'colbert' | 'npy';

/**
 * The IVF as stored: by passage (`ivf.pid.pt`, `ivf.npy`) or by embedding (older `ivf.pt`).
 * Both tensors are read from their places in slices, so the file may pass 4 GiB.
 */
export interface StoredIvf {
  kind: 'pid' | 'embedding';
  /** The lists one after another (passage or embedding ids). */
  values: Int32Array;
  /** The length of each centroid's list. */
  lengths: Int32Array;
  file: string;
}

export interface IndexFiles {
  readonly layout: Layout;
  readonly dir: string;
  centroids(): Promise<{ tensor: Tensor; file: string }>;
  buckets(): Promise<{ cutoffs: Tensor; weights: Tensor; file: string }>;
  ivf(): Promise<StoredIvf>;
  chunk(index: number): Promise<{ codes: Tensor; residuals: Tensor; files: [string, string] }>;
  /** The codes and residuals files of chunk `index`. */
  chunkFiles(index: number): [string, string];
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A `.pt` file that must hold one tensor. */
async function torchTensor(path: string): Promise<Tensor> {
  const value = await readTorchFile(path);
  if (!isTensor(value)) throw new FormatError(path, 'expected a single tensor');
  return value;
}

/** A `.pt` file that must hold a tuple of two tensors. */
async function torchPair(path: string): Promise<[Tensor, Tensor]> {
  const value = await readTorchFile(path);
  const items =
    typeof value === 'object' && value !== null && 'kind' in value && value.kind === 'tuple'
      ? value.items
      : [];
  const [a, b] = items;
  if (items.length !== 2 || !isTensor(a) || !isTensor(b))
    throw new FormatError(path, 'expected a tuple of two tensors');
  return [a, b];
}

async function mustExist(path: string, what: string): Promise<string> {
  if (!(await exists(path))) throw new FormatError(path, `missing ${what}`);
  return path;
}

function colbertFiles(dir: string): IndexFiles {
  const at = (name: string) => join(dir, name);
  return {
    layout: 'colbert',
    dir,
    centroids: async () => {
      const file = await mustExist(at('centroids.pt'), 'the centroids');
      return { tensor: await torchTensor(file), file };
    },
    buckets: async () => {
      const file = await mustExist(at('buckets.pt'), 'the residual buckets');
      const [cutoffs, weights] = await torchPair(file);
      return { cutoffs, weights, file };
    },
    ivf: async () => {
      const byPid = at('ivf.pid.pt');
      const kind = (await exists(byPid)) ? 'pid' : 'embedding';
      const file =
        kind === 'pid' ? byPid : await mustExist(at('ivf.pt'), 'the IVF (ivf.pid.pt or ivf.pt)');
      const [values, lengths] = torchTuplePlaces(file, 2);
      return {
        kind,
        values: await readInt32Place(values!, 'IVF'),
        lengths: await readInt32Place(lengths!, 'IVF list lengths'),
        file,
      };
    },
    chunk: async (i) => {
      const codesFile = await mustExist(at(`${i}.codes.pt`), `the codes of chunk ${i}`);
      const residualsFile = await mustExist(at(`${i}.residuals.pt`), `the residuals of chunk ${i}`);
      return {
        codes: await torchTensor(codesFile),
        residuals: await torchTensor(residualsFile),
        files: [codesFile, residualsFile],
      };
    },
    chunkFiles: (i) => [at(`${i}.codes.pt`), at(`${i}.residuals.pt`)],
  };
}

function npyFiles(dir: string): IndexFiles {
  const at = (name: string) => join(dir, name);
  const read = async (name: string, what: string) => readNpyTensor(await mustExist(at(name), what));
  return {
    layout: 'npy',
    dir,
    centroids: async () => ({
      tensor: await read('centroids.npy', 'the centroids'),
      file: at('centroids.npy'),
    }),
    buckets: async () => ({
      cutoffs: await read('bucket_cutoffs.npy', 'the bucket cutoffs'),
      weights: await read('bucket_weights.npy', 'the bucket weights'),
      file: at('bucket_weights.npy'),
    }),
    ivf: async () => {
      const file = await mustExist(at('ivf.npy'), 'the IVF');
      const lengthsFile = await mustExist(at('ivf_lengths.npy'), 'the IVF list lengths');
      return {
        kind: 'pid',
        values: await readInt32Place(npyPlace(file), 'IVF'),
        lengths: await readInt32Place(npyPlace(lengthsFile), 'IVF list lengths'),
        file,
      };
    },
    chunk: async (i) => ({
      codes: await read(`${i}.codes.npy`, `the codes of chunk ${i}`),
      residuals: await read(`${i}.residuals.npy`, `the residuals of chunk ${i}`),
      files: [at(`${i}.codes.npy`), at(`${i}.residuals.npy`)],
    }),
    chunkFiles: (i) => [at(`${i}.codes.npy`), at(`${i}.residuals.npy`)],
  };
}

/**
 * Which layout `dir` holds: `.pt` files (ColBERT) win over `.npy` files (next-plaid).
 *
 * @example (await indexFiles('indexes/neuclir')).layout // 'colbert'
 */
export async function indexFiles(dir: string): Promise<IndexFiles> {
  if (await exists(join(dir, 'centroids.pt'))) return colbertFiles(dir);
  if (await exists(join(dir, 'centroids.npy'))) return npyFiles(dir);
  if (!(await exists(join(dir, 'metadata.json'))))
    throw new FormatError(dir, 'not a PLAID index directory (no metadata.json)');
  throw new FormatError(dir, 'PLAID index without centroids.pt or centroids.npy');
}
