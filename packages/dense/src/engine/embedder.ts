/** Where a Dense service's embeddings come from: an API or a local model, one interface. */

export interface Embedder {
  /** One vector per text, in order; prompts already applied. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** The vector length, when known before the first call (a local graph that declares it). */
  readonly dimension: number | undefined;
  /** What it is, for logs and errors: the API's model name or the model folder. */
  readonly label: string;
  close(): Promise<void>;
}
