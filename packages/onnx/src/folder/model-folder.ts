/**
 * A model folder as the usual exporters write it (Optimum, sentence-transformers'
 * `export_optimized_onnx_model`, `torch.onnx.export` plus `tokenizer.save_pretrained`), or a
 * checkpoint as `save_pretrained` writes it (irserve builds its graph, see checkpoint-graph.ts):
 *
 * ```
 * model.onnx (or onnx/model.onnx)   the graph (external weights `model.onnx_data` beside it), or
 * model.safetensors, ...            a checkpoint's weights (sharded safetensors, pytorch_model.bin)
 * tokenizer.json                    the fast tokenizer (WordPiece, BPE, Unigram), or instead
 * spiece.model                      T5 / mT5's SentencePiece model (spiece-tokenizer.ts)
 * tokenizer_config.json             optional: model_max_length, padding_side, special tokens
 * config.json                       the transformers config (optional beside model.onnx)
 * sentence_bert_config.json         optional: max_seq_length
 * 1_Pooling/config.json, modules.json  optional: the sentence-transformers pooling and Normalize
 * config_sentence_transformers.json optional: the query and document prompts (prefixes)
 * onnx_config.json                  optional: irserve's run settings (see onnx-config.ts)
 * ```
 *
 * Nothing is ever downloaded: a missing file is an ERR_CONFIG naming the path.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { findWeightFile, WEIGHT_FILES } from '../checkpoint/weight-files.js';
import { modelError } from '../errors.js';
import { readSpieceTokenizer } from './spiece-tokenizer.js';
import { readJson, readJsonObject } from './json-file.js';
import { onnxConfigSchema, type OnnxConfig, type PoolingName } from './onnx-config.js';

export interface ModelFolder {
  /** Absolute path of the folder. */
  readonly path: string;
  /**
   * `onnx`: an exported graph; `checkpoint`: Hugging Face weights whose graph irserve builds
   * from config.json (architectures/checkpoint-graph.ts).
   */
  readonly format: 'onnx' | 'checkpoint';
  /** Absolute path of the ONNX graph, or of a checkpoint's weight file (or shard index). */
  readonly modelFile: string;
  /** `tokenizer.json`, parsed (built from `spiece.model` when the folder has only that). */
  readonly tokenizerJson: Record<string, unknown>;
  /** `tokenizer_config.json`, parsed (`{}` when absent). */
  readonly tokenizerConfig: Record<string, unknown>;
  /** `config.json`, parsed (`{}` when absent). */
  readonly config: Record<string, unknown>;
  /** `onnx_config.json`, checked (`{}` when absent); unknown keys kept for extras. */
  readonly onnxConfig: OnnxConfig;
  /** The longest input the folder's files allow (sentence-transformers, then the tokenizer). */
  readonly maxLength: number | undefined;
  /** The pooling the folder's files name (onnx_config.json, then 1_Pooling/config.json). */
  readonly pooling: PoolingName | undefined;
  /** Whether the folder's files ask for L2-normalised embeddings. */
  readonly normalize: boolean | undefined;
  /**
   * The text put before a query and before a passage (onnx_config.json's `query_prefix` /
   * `passage_prefix`, else the `query` and `document` prompts of
   * config_sentence_transformers.json); undefined when the folder names none.
   */
  readonly prefixes: { readonly query?: string; readonly passage?: string };
}

export interface LoadModelFolderOptions {
  /** The graph file relative to the folder; overrides onnx_config.json's `model_file`. */
  modelFile?: string;
}

const REQUIRED =
  'a model folder holds tokenizer.json (or a T5 spiece.model) and either model.onnx (or onnx/model.onnx) or a checkpoint: config.json with model.safetensors (or sharded safetensors, or pytorch_model.bin)';

/**
 * Reads and checks a model folder; no file is fetched from anywhere.
 *
 * @example
 * const folder = await loadModelFolder('models/all-MiniLM-L6-v2');
 * folder.modelFile // '/abs/models/all-MiniLM-L6-v2/model.onnx'
 */
export async function loadModelFolder(
  path: string,
  options: LoadModelFolderOptions = {},
): Promise<ModelFolder> {
  const folder = resolve(path);
  const info = await stat(folder).catch(() => undefined);
  if (!info) throw modelError(folder, `does not exist (${REQUIRED}; nothing is downloaded)`);
  if (!info.isDirectory()) throw modelError(folder, `is not a directory (${REQUIRED})`);
  const parsed = onnxConfigSchema.safeParse(
    (await readJsonObject(folder, join(folder, 'onnx_config.json'))) ?? {},
  );
  if (!parsed.success)
    throw modelError(
      folder,
      `onnx_config.json: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const onnxConfig = parsed.data;
  const { format, modelFile } = await findModel(folder, options.modelFile ?? onnxConfig.model_file);
  const tokenizerConfig =
    (await readJsonObject(folder, join(folder, 'tokenizer_config.json'))) ?? {};
  const tokenizerJson =
    checkTokenizerShape(folder, await readJsonObject(folder, join(folder, 'tokenizer.json'))) ??
    (await readSpieceTokenizer(folder, tokenizerConfig));
  if (!tokenizerJson)
    throw modelError(
      folder,
      `tokenizer.json is missing (${REQUIRED}; save it with tokenizer.save_pretrained)`,
    );
  const config = (await readJsonObject(folder, join(folder, 'config.json'))) ?? {};
  const sentenceBert = await readJsonObject(folder, join(folder, 'sentence_bert_config.json'));
  const modules = await readJson(folder, join(folder, 'modules.json'));
  return {
    path: folder,
    format,
    modelFile,
    tokenizerJson,
    tokenizerConfig,
    config,
    onnxConfig,
    maxLength:
      onnxConfig.max_length ??
      positive(sentenceBert?.max_seq_length) ??
      positive(tokenizerConfig.model_max_length),
    pooling: onnxConfig.pooling ?? (await sentenceTransformersPooling(folder, modules)),
    normalize: onnxConfig.normalize ?? hasNormalizeModule(modules),
    prefixes: await prefixesOf(folder, onnxConfig),
  };
}

/** The ONNX graph (the named one, else model.onnx, else onnx/model.onnx), else the checkpoint. */
async function findModel(
  folder: string,
  named: string | undefined,
): Promise<Pick<ModelFolder, 'format' | 'modelFile'>> {
  const candidates = named ? [named] : ['model.onnx', join('onnx', 'model.onnx')];
  for (const candidate of candidates) {
    const file = resolve(folder, candidate);
    if (await isFile(file)) return { format: 'onnx', modelFile: file };
  }
  if (named) throw modelError(folder, `the graph ${named} is missing`);
  const weights = await findWeightFile(folder);
  if (weights === undefined)
    throw modelError(
      folder,
      `no model.onnx or onnx/model.onnx, and no checkpoint weights (${WEIGHT_FILES.join(', ')}) (${REQUIRED})`,
    );
  if (!(await isFile(join(folder, 'config.json'))))
    throw modelError(
      folder,
      `config.json is missing: irserve builds the graph of ${weights} from config.json's model_type and sizes (save it with model.save_pretrained)`,
    );
  return { format: 'checkpoint', modelFile: join(folder, weights) };
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** `model_max_length` of a tokenizer without a limit is a huge sentinel: ignore it. */
function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 1e7
    ? value
    : undefined;
}

/** The `path` of the first module of `modules.json` whose type ends with `.${kind}`. */
function modulePath(modules: unknown, kind: string): string | undefined {
  if (!Array.isArray(modules)) return undefined;
  for (const module of modules as unknown[]) {
    const { type, path } = (module ?? {}) as { type?: unknown; path?: unknown };
    if (typeof type === 'string' && type.endsWith(`.${kind}`))
      return typeof path === 'string' ? path : '';
  }
  return undefined;
}

/** The pooling of the Pooling module (the folder modules.json names, else `1_Pooling`). */
async function sentenceTransformersPooling(
  folder: string,
  modules: unknown,
): Promise<PoolingName | undefined> {
  const dir = modulePath(modules, 'Pooling') ?? '1_Pooling';
  const pooling = await readJsonObject(folder, join(folder, dir, 'config.json'));
  if (!pooling) return undefined;
  if (pooling.pooling_mode_cls_token === true) return 'cls';
  if (pooling.pooling_mode_lasttoken === true) return 'last_token';
  if (pooling.pooling_mode_max_tokens === true) return 'max';
  if (pooling.pooling_mode_mean_tokens === true) return 'mean';
  return undefined;
}

/** sentence-transformers lists a `Normalize` module in modules.json when it normalises. */
function hasNormalizeModule(modules: unknown): boolean | undefined {
  if (!Array.isArray(modules)) return undefined;
  return modulePath(modules, 'Normalize') !== undefined;
}

/**
 * The query and passage prefixes: onnx_config.json's, else the sentence-transformers prompts
 * (`prompts.query`; `prompts.document`, else `prompts.passage`), as `encode(prompt_name=...)`
 * puts them before the text.
 */
async function prefixesOf(
  folder: string,
  onnxConfig: OnnxConfig,
): Promise<{ query?: string; passage?: string }> {
  const file = await readJsonObject(folder, join(folder, 'config_sentence_transformers.json'));
  const prompts = (file?.prompts ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const query = onnxConfig.query_prefix ?? text(prompts.query);
  const passage = onnxConfig.passage_prefix ?? text(prompts.document) ?? text(prompts.passage);
  return {
    ...(query !== undefined ? { query } : {}),
    ...(passage !== undefined ? { passage } : {}),
  };
}

/**
 * A tokenizer.json that the tokenizers library would refuse with a message naming no file (`Tokenizer
 * must contain a "model" property`): refused here, naming the file and what it should hold.
 */
function checkTokenizerShape(
  folder: string,
  json: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (json === undefined) return undefined;
  const model = json.model;
  if (model && typeof model === 'object' && !Array.isArray(model)) return json;
  throw modelError(
    folder,
    `tokenizer.json has no "model" object: expected the fast tokenizer file that transformers' tokenizer.save_pretrained writes (with "model": {"type": "WordPiece" | "BPE" | "Unigram", "vocab": ...}), found ${describeKeys(json)}`,
  );
}

function describeKeys(json: Record<string, unknown>): string {
  const keys = Object.keys(json);
  if (keys.length === 0) return 'an empty object';
  const shown = keys.slice(0, 6).map((key) => `"${key}"`);
  return `the keys ${shown.join(', ')}${keys.length > 6 ? ', ...' : ''}`;
}
