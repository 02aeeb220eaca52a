/**
 * Loaded models shared by reference count: every service that names the same model folder
 * with the same session options gets the one session (and tokenizer), created once; the last
 * release frees it. A pool belongs to an app (see `sessionPoolFor`), never to the module.
 */
import { SharedByKey } from 'irserve/plugin';
import { loadModelFolder, type ModelFolder } from '../folder/model-folder.js';
import { TextTokenizer } from '../tokenizer/text-tokenizer.js';
import { ModelSession } from './model-session.js';
import { sessionOptions, sessionOptionsKey, type SessionOptions } from './session-options.js';

export interface LoadedModel {
  readonly folder: ModelFolder;
  readonly tokenizer: TextTokenizer;
  readonly session: ModelSession;
}

/** A hold on a shared model; `release()` once when done (a second call does nothing). */
export interface ModelLease extends LoadedModel {
  release(): Promise<void>;
}

export interface AcquireOptions extends Partial<SessionOptions> {
  /** The graph inside the folder (default: onnx_config.json's, else model.onnx). */
  modelFile?: string;
}

export class SessionPool {
  readonly #models = new SharedByKey<LoadedModel>((model) => model.session.release());

  /**
   * The model of `folderPath` with these options, loading it on first use.
   *
   * @example
   * const pool = new SessionPool();
   * const lease = await pool.acquire('models/minilm', { intra_op_threads: 2 });
   * try { ... lease.session.run(...) } finally { await lease.release(); }
   */
  async acquire(folderPath: string, options: AcquireOptions = {}): Promise<ModelLease> {
    const { modelFile, ...rest } = options;
    const settings = sessionOptions(rest);
    const folder = await loadModelFolder(folderPath, modelFile ? { modelFile } : {});
    const key = `${folder.modelFile}\n${sessionOptionsKey(settings)}`;
    const lease = await this.#models.acquire(key, () => load(folder, settings));
    return { ...lease.value, release: lease.release };
  }

  /** Models loaded now (for tests and diagnostics). */
  get size(): number {
    return this.#models.size;
  }
}

async function load(folder: ModelFolder, settings: SessionOptions): Promise<LoadedModel> {
  const tokenizer = TextTokenizer.fromFolder(folder);
  const session = await ModelSession.create(folder.modelFile, settings);
  return { folder, tokenizer, session };
}
