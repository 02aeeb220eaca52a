/**
 * Loaded models shared by reference count: every service that names the same model folder
 * with the same session options gets the one session (and tokenizer), created once; the last
 * release frees it. A pool belongs to an app (see `sessionPoolFor`), never to the module.
 */
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

interface Entry {
  model: Promise<LoadedModel>;
  holders: number;
}

export class SessionPool {
  readonly #entries = new Map<string, Entry>();

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
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { model: load(folder, settings), holders: 0 };
      this.#entries.set(key, entry);
    }
    entry.holders++;
    let model: LoadedModel;
    try {
      model = await entry.model;
    } catch (error) {
      await this.#drop(key, entry);
      throw error;
    }
    let released = false;
    return {
      ...model,
      release: async () => {
        if (released) return;
        released = true;
        await this.#drop(key, entry);
      },
    };
  }

  /** Models loaded now (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }

  async #drop(key: string, entry: Entry): Promise<void> {
    entry.holders--;
    if (entry.holders > 0) return;
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    const model = await entry.model.catch(() => undefined);
    await model?.session.release();
  }
}

async function load(folder: ModelFolder, settings: SessionOptions): Promise<LoadedModel> {
  const tokenizer = TextTokenizer.fromFolder(folder);
  const session = await ModelSession.create(folder.modelFile, settings);
  return { folder, tokenizer, session };
}
