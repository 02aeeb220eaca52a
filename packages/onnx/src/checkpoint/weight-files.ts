/**
 * Finds and reads the weight files of a checkpoint folder as Hugging Face writes them, in this
 * order: `model.safetensors.index.json` (shards `model-0000N-of-0000M.safetensors`),
 * `model.safetensors`, `pytorch_model.bin.index.json`, `pytorch_model.bin`. Links are resolved
 * (the Hugging Face cache links each file to a blob), so ONNX Runtime reads the real files.
 */
import { open, readFile as readText, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FormatError } from 'irserve/plugin';
import { modelError } from '../errors.js';
import { fileSource } from '../formats/zip-archive.js';
import { readTorchRanges, type TensorRange } from '../formats/torch-file.js';
import { readSafetensorsHeader } from './safetensors.js';
import { Weights, type WeightEntry } from './weights.js';

/** The files a checkpoint's weights may be in, in order of preference. */
export const WEIGHT_FILES = [
  'model.safetensors.index.json',
  'model.safetensors',
  'pytorch_model.bin.index.json',
  'pytorch_model.bin',
] as const;

/**
 * The first weight file of `WEIGHT_FILES` the folder holds, or undefined.
 *
 * @example await findWeightFile('/models/minilm') // 'model.safetensors'
 */
export async function findWeightFile(folder: string): Promise<string | undefined> {
  for (const name of WEIGHT_FILES)
    if ((await stat(join(folder, name)).catch(() => undefined))?.isFile()) return name;
  return undefined;
}

/**
 * Reads the headers of the folder's weights; every problem is an ERR_CONFIG naming the file
 * (and the tensor).
 *
 * @example const weights = await loadWeights('/models/minilm')
 */
export async function loadWeights(folder: string): Promise<Weights> {
  const found = await findWeightFile(folder);
  if (found === undefined)
    throw modelError(folder, `holds no weights (looked for ${WEIGHT_FILES.join(', ')})`);
  try {
    const entries = found.endsWith('.index.json')
      ? await readSharded(folder, found)
      : await readFile(folder, found);
    return new Weights(folder, found, entries);
  } catch (error) {
    if (error instanceof FormatError) throw modelError(folder, error.message);
    throw error;
  }
}

/** The tensors of the folder's file `name`, placed in its real file (links resolved). */
async function readFile(folder: string, name: string): Promise<WeightEntry[]> {
  const path = join(folder, name);
  const file = await realpath(path);
  const entries = name.endsWith('.safetensors')
    ? await readSafetensorsHeader(path, name)
    : await readTorchBin(path, name);
  return entries.map((entry) => ({ ...entry, file, label: name }));
}

/** `weight_map`: tensor name -> shard file; each shard is read once and must hold its tensors. */
async function readSharded(folder: string, indexName: string): Promise<WeightEntry[]> {
  let index: { weight_map?: unknown };
  try {
    index = JSON.parse(await readText(join(folder, indexName), 'utf8')) as typeof index;
  } catch (error) {
    throw new FormatError(indexName, `is not valid JSON: ${(error as Error).message}`);
  }
  const map = index?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map))
    throw new FormatError(indexName, 'has no weight_map object (tensor name -> shard file)');
  const byShard = new Map<string, string[]>();
  for (const [name, shard] of Object.entries(map as Record<string, unknown>)) {
    if (typeof shard !== 'string' || shard.includes('/') || shard.includes('\\') || shard === '..')
      throw new FormatError(
        indexName,
        `tensor ${name}: bad shard file name ${JSON.stringify(shard)}`,
      );
    byShard.set(shard, [...(byShard.get(shard) ?? []), name]);
  }
  const entries: WeightEntry[] = [];
  for (const [shard, names] of byShard) {
    if (!(await stat(join(folder, shard)).catch(() => undefined))?.isFile())
      throw new FormatError(indexName, `names the shard ${shard}, which is missing`);
    const inShard = new Map((await readFile(folder, shard)).map((entry) => [entry.name, entry]));
    for (const name of names) {
      const entry = inShard.get(name);
      if (!entry)
        throw new FormatError(shard, `tensor ${name} (listed in ${indexName}) is missing`);
      entries.push(entry);
    }
  }
  return entries;
}

/** `pytorch_model.bin`: a state dict (an OrderedDict of tensors), read where it lies. */
async function readTorchBin(path: string, label: string): Promise<WeightEntry[]> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const value = readTorchRanges(fileSource(handle.fd, size), label, (range) => range);
    if (!(value instanceof Map))
      throw new FormatError(label, 'is not a state dict (a dict of tensor name -> tensor)');
    const entries: WeightEntry[] = [];
    for (const [name, tensor] of value) {
      if (typeof name !== 'string' || !isRange(tensor))
        throw new FormatError(label, `entry ${String(name)} is not a tensor`);
      entries.push({ name, file: path, label, ...tensor });
    }
    return entries;
  } finally {
    await handle.close();
  }
}

function isRange(value: unknown): value is TensorRange {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TensorRange).offset === 'number' &&
    typeof (value as TensorRange).dtype === 'string'
  );
}
