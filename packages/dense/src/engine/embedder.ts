/** Where a Dense service's embeddings come from: an API or a local model, one interface. */
import type { BatchOptions } from 'irserve/plugin';

export interface Embedder {
  /**
   * One vector per text, in order; prompts already applied. The batch's `signal` aborts when
   * nobody waits any more: an API call stops there; a local model, which never reads it (a
   * signal is made only when read), finishes the batch it is running.
   */
  embed(texts: string[], options?: BatchOptions): Promise<Float32Array[]>;
  /** The vector length, when known before the first call (a local graph that declares it). */
  readonly dimension: number | undefined;
  /** A local model's query and passage prefixes (its sentence-transformers prompts). */
  readonly prefixes?: { readonly query?: string; readonly passage?: string };
  /** What it is, for logs and errors: the API's model name or the model folder. */
  readonly label: string;
  /** A local model's folder or file (its content is part of the service's cache fingerprint). */
  readonly modelPath?: string;
  close(): Promise<void>;
}
