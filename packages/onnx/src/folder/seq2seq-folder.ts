/**
 * A sequence-to-sequence model folder as Hugging Face Optimum exports T5 / mT5
 * (`optimum-cli export onnx --task text2text-generation`):
 *
 * ```
 * encoder_model.onnx                 the encoder (input_ids, attention_mask -> last_hidden_state)
 * decoder_model.onnx                 the decoder without a cache, or instead
 * decoder_model_merged.onnx          the decoder with and without a cache (`use_cache_branch`)
 * tokenizer.json                     the fast tokenizer (T5 / mT5: SentencePiece Unigram), or
 * spiece.model                       the SentencePiece model itself, as T5 repositories ship it
 * config.json                        the transformers config, with `decoder_start_token_id`
 * ```
 *
 * The graphs may also sit under `onnx/` (as Hub repositories that ship ONNX weights put them).
 * A folder with no encoder graph but a T5 / mT5 checkpoint (config.json, model.safetensors or
 * pytorch_model.bin, tokenizer.json, as `save_pretrained` writes it) is used as it is: irserve
 * builds one graph of its encoder and the decoder's first step (architectures/t5.ts).
 * `decoder_with_past_model.onnx` is not needed: a reranker runs one decoder step. Nothing is
 * ever downloaded: a missing file is an ERR_CONFIG naming the path and what the folder holds.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { findWeightFile } from '../checkpoint/weight-files.js';
import { modelError } from '../errors.js';
import { SPIECE_FILE } from './spiece-tokenizer.js';
import { loadModelFolder, type ModelFolder } from './model-folder.js';

export const SEQ2SEQ_REQUIRED =
  'a seq2seq model folder holds encoder_model.onnx, decoder_model.onnx or decoder_model_merged.onnx, tokenizer.json (or spiece.model) and config.json with decoder_start_token_id, as optimum-cli export onnx --task text2text-generation writes them; or a T5 / mT5 checkpoint: config.json, model.safetensors or pytorch_model.bin and tokenizer.json or spiece.model, as save_pretrained writes them';

const ENCODER_CANDIDATES = ['encoder_model.onnx', join('onnx', 'encoder_model.onnx')];
const DECODER_CANDIDATES = [
  'decoder_model.onnx',
  'decoder_model_merged.onnx',
  join('onnx', 'decoder_model.onnx'),
  join('onnx', 'decoder_model_merged.onnx'),
];

export interface Seq2SeqFolder {
  /** `onnx`: two exported graphs; `checkpoint`: T5 / mT5 weights irserve builds one graph of. */
  readonly format: 'onnx' | 'checkpoint';
  /** The folder with the encoder as its graph (tokenizer, config.json, limits). */
  readonly folder: ModelFolder;
  /** Absolute path of the encoder graph (a checkpoint's weight file). */
  readonly encoderFile: string;
  /** Absolute path of the decoder graph (a checkpoint's weight file). */
  readonly decoderFile: string;
  /** `decoder_start_token_id` of config.json: the id the decoder's first step reads. */
  readonly decoderStartTokenId: number;
}

export interface Seq2SeqFiles {
  /** The encoder graph relative to the folder (default: encoder_model.onnx, else onnx/...). */
  encoderFile?: string;
  /** The decoder graph relative to the folder (default: decoder_model.onnx, then merged). */
  decoderFile?: string;
}

/**
 * Reads and checks a seq2seq model folder; no file is fetched from anywhere.
 *
 * @example
 * const { encoderFile, decoderStartTokenId } = await loadSeq2SeqFolder('models/monot5-base');
 */
export async function loadSeq2SeqFolder(
  path: string,
  files: Seq2SeqFiles = {},
): Promise<Seq2SeqFolder> {
  const root = resolve(path);
  const info = await stat(root).catch(() => undefined);
  if (!info) throw modelError(root, `does not exist (${SEQ2SEQ_REQUIRED}; nothing is downloaded)`);
  if (!info.isDirectory()) throw modelError(root, `is not a directory (${SEQ2SEQ_REQUIRED})`);
  const named = files.encoderFile !== undefined || files.decoderFile !== undefined;
  if (!named && !(await anyFile(root, ENCODER_CANDIDATES)) && (await findWeightFile(root)))
    return checkpointFolder(root);
  const encoderFile = await findFile(root, 'encoder', files.encoderFile, ENCODER_CANDIDATES);
  const decoderFile = await findFile(root, 'decoder', files.decoderFile, DECODER_CANDIDATES);
  if (!(await isFile(join(root, 'tokenizer.json'))) && !(await isFile(join(root, SPIECE_FILE))))
    throw modelError(root, `tokenizer.json is missing (${SEQ2SEQ_REQUIRED})`);
  if (!(await isFile(join(root, 'config.json'))))
    throw modelError(root, `config.json is missing (${SEQ2SEQ_REQUIRED})`);
  const folder = await loadModelFolder(root, { modelFile: encoderFile });
  return {
    format: 'onnx',
    folder,
    encoderFile,
    decoderFile,
    decoderStartTokenId: startToken(folder),
  };
}

/** A T5 / mT5 checkpoint (config.json and weights, no graphs): one graph is built of it. */
async function checkpointFolder(root: string): Promise<Seq2SeqFolder> {
  const folder = await loadModelFolder(root);
  const { modelFile } = folder;
  const decoderStartTokenId = startToken(folder);
  return {
    format: 'checkpoint',
    folder,
    encoderFile: modelFile,
    decoderFile: modelFile,
    decoderStartTokenId,
  };
}

function startToken(folder: ModelFolder): number {
  const root = folder.path;
  const start = folder.config.decoder_start_token_id;
  if (typeof start !== 'number' || !Number.isInteger(start) || start < 0)
    throw modelError(
      root,
      `config.json has no decoder_start_token_id (a non-negative integer; T5 and mT5 use 0, the pad token), got ${JSON.stringify(start)}`,
    );
  return start;
}

async function findFile(
  root: string,
  role: 'encoder' | 'decoder',
  named: string | undefined,
  candidates: readonly string[],
): Promise<string> {
  for (const candidate of named ? [named] : candidates) {
    const file = resolve(root, candidate);
    if (await isFile(file)) return file;
  }
  throw modelError(
    root,
    named
      ? `the ${role} graph ${named} is missing (${role}_file)`
      : `no ${role} graph: looked for ${candidates.join(', ')} (${SEQ2SEQ_REQUIRED})`,
  );
}

async function anyFile(root: string, candidates: readonly string[]): Promise<boolean> {
  for (const candidate of candidates) if (await isFile(resolve(root, candidate))) return true;
  return false;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}
