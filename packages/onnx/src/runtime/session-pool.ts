/**
 * Loaded models shared by reference count: every service that names the same model folder
 * with the same session options gets the one session (and tokenizer), created once; the last
 * release frees it. A pool belongs to an app (see `sessionPoolFor`), never to the module.
 */
import { SharedByKey } from 'irserve/plugin';
import {
  buildCheckpointGraph,
  type CheckpointGraph,
  type GraphHead,
} from '../architectures/checkpoint-graph.js';
import { loadWeights } from '../checkpoint/weight-files.js';
import { modelError } from '../errors.js';
import { loadModelFolder, type ModelFolder } from '../folder/model-folder.js';
import {
  loadSeq2SeqFolder,
  type Seq2SeqFiles,
  type Seq2SeqFolder,
} from '../folder/seq2seq-folder.js';
import { TextTokenizer } from '../tokenizer/text-tokenizer.js';
import { ModelSession } from './model-session.js';
import { FirstStepGraph, type FirstStepModel } from './first-step.js';
import { Seq2SeqModel } from './seq2seq-model.js';
import { sessionOptions, sessionOptionsKey, type SessionOptions } from './session-options.js';

export interface LoadedModel {
  readonly folder: ModelFolder;
  readonly tokenizer: TextTokenizer;
  readonly session: ModelSession;
  /** For a checkpoint folder: the graph irserve built (its architecture and head). */
  readonly built?: { readonly modelType: string; readonly head: GraphHead };
}

/** A hold on a shared model; `release()` once when done (a second call does nothing). */
export interface ModelLease extends LoadedModel {
  release(): Promise<void>;
}

export interface AcquireOptions extends Partial<SessionOptions> {
  /** The graph inside the folder (default: onnx_config.json's, else model.onnx). */
  modelFile?: string;
  /**
   * For a checkpoint folder (no ONNX graph): the graph to build, `hidden` (token states, for
   * embedders), `classifier`, `masked-lm` or `colbert`; default: the one config.json's
   * `architectures` implies. An ONNX graph is used as it is.
   */
  head?: GraphHead;
  /**
   * For a `next-token` head: the tokens whose logits the graph outputs, in this order
   * (`logits [batch, tokens.length]`); default: the whole vocabulary.
   */
  tokens?: readonly string[];
}

/** An encoder-decoder model (T5, mT5) with its folder and tokenizer. */
export interface LoadedSeq2Seq {
  readonly folder: ModelFolder;
  readonly tokenizer: TextTokenizer;
  readonly model: FirstStepModel;
}

/** A hold on a shared seq2seq model; `release()` once when done. */
export interface Seq2SeqLease extends LoadedSeq2Seq {
  release(): Promise<void>;
}

export type AcquireSeq2SeqOptions = Seq2SeqFiles & Partial<SessionOptions>;

export class SessionPool {
  readonly #models = new SharedByKey<LoadedModel>((model) => model.session.release());
  readonly #seq2seq = new SharedByKey<LoadedSeq2Seq>((loaded) => loaded.model.release());

  /**
   * The model of `folderPath` with these options, loading it on first use.
   *
   * @example
   * const pool = new SessionPool();
   * const lease = await pool.acquire('models/minilm', { intra_op_threads: 2 });
   * try { ... lease.session.run(...) } finally { await lease.release(); }
   */
  async acquire(folderPath: string, options: AcquireOptions = {}): Promise<ModelLease> {
    const { modelFile, head, tokens, ...rest } = options;
    const settings = sessionOptions(rest);
    const folder = await loadModelFolder(folderPath, modelFile ? { modelFile } : {});
    const graph =
      folder.format === 'checkpoint' ? JSON.stringify([head ?? 'default', tokens ?? null]) : '';
    const key = `${folder.modelFile}\n${graph}\n${sessionOptionsKey(settings)}`;
    const lease = await this.#models.acquire(key, () => load(folder, settings, head, tokens));
    return { ...lease.value, release: lease.release };
  }

  /**
   * The encoder-decoder model of `folderPath` (see seq2seq-folder.ts), loading it on first
   * use; services naming the same graphs with the same options share it.
   *
   * @example
   * const lease = await pool.acquireSeq2Seq('models/monot5-base', { intra_op_threads: 2 });
   */
  async acquireSeq2Seq(
    folderPath: string,
    options: AcquireSeq2SeqOptions = {},
  ): Promise<Seq2SeqLease> {
    const { encoderFile, decoderFile, ...rest } = options;
    const settings = sessionOptions(rest);
    const folder = await loadSeq2SeqFolder(folderPath, {
      ...(encoderFile ? { encoderFile } : {}),
      ...(decoderFile ? { decoderFile } : {}),
    });
    const key = `seq2seq\n${folder.encoderFile}\n${folder.decoderFile}\n${sessionOptionsKey(settings)}`;
    const lease = await this.#seq2seq.acquire(key, () => loadSeq2Seq(folder, settings));
    return { ...lease.value, release: lease.release };
  }

  /** Models loaded now (for tests and diagnostics). */
  get size(): number {
    return this.#models.size + this.#seq2seq.size;
  }
}

async function loadSeq2Seq(
  folder: Seq2SeqFolder,
  settings: SessionOptions,
): Promise<LoadedSeq2Seq> {
  const tokenizer = TextTokenizer.fromFolder(folder.folder);
  if (folder.format === 'onnx')
    return { folder: folder.folder, tokenizer, model: await Seq2SeqModel.create(folder, settings) };
  const { session, graph } = await buildSession(folder.folder, settings, 'first-step', undefined);
  const vocab = folder.folder.config.vocab_size;
  const model = new FirstStepGraph(session, typeof vocab === 'number' ? vocab : undefined);
  return { folder: withLimit(folder.folder, graph.maxTokens), tokenizer, model };
}

/** The ids of `tokens` in the tokenizer; a token it lacks is a start-up error. */
function tokenIds(
  folder: string,
  tokenizer: TextTokenizer,
  tokens: readonly string[] | undefined,
): number[] | undefined {
  return tokens?.map((token) => {
    const id = tokenizer.tokenId(token);
    if (id === undefined)
      throw modelError(folder, `the tokenizer has no token ${JSON.stringify(token)}`);
    return id;
  });
}

/** Builds the checkpoint's graph of `head` and creates its session. */
async function buildSession(
  folder: ModelFolder,
  settings: SessionOptions,
  head: GraphHead | undefined,
  tokens: readonly number[] | undefined,
): Promise<{ session: ModelSession; graph: CheckpointGraph }> {
  const weights = await loadWeights(folder.path);
  const graph = buildCheckpointGraph(folder.path, folder.config, weights, head, {
    ...(tokens ? { tokens } : {}),
  });
  const session = await ModelSession.create(
    { label: folder.modelFile, bytes: graph.bytes, weightsFolder: graph.weightsFolder },
    settings,
  );
  return { session, graph };
}

/** The folder with its longest input capped at what the architecture takes. */
function withLimit(folder: ModelFolder, limit: number | undefined): ModelFolder {
  if (limit === undefined) return folder;
  return { ...folder, maxLength: Math.min(folder.maxLength ?? limit, limit) };
}

async function load(
  folder: ModelFolder,
  settings: SessionOptions,
  head: GraphHead | undefined,
  tokens: readonly string[] | undefined,
): Promise<LoadedModel> {
  const tokenizer = TextTokenizer.fromFolder(folder);
  if (folder.format === 'onnx')
    return { folder, tokenizer, session: await ModelSession.create(folder.modelFile, settings) };
  const ids = tokenIds(folder.path, tokenizer, tokens);
  const { session, graph } = await buildSession(folder, settings, head, ids);
  return {
    folder: withLimit(folder, graph.maxTokens),
    tokenizer,
    session,
    built: { modelType: graph.modelType, head: graph.head },
  };
}
