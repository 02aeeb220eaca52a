/**
 * Embeddings from a GGUF model on llama.cpp: texts cut to `max_length` tokens, pooled as the
 * model's metadata says (mean, cls, last token), L2-normalised as RoutIR's Qwen3 does.
 */
import type { LlamaEmbeddingContext, Token } from 'node-llama-cpp';
import { IrserveError } from 'irserve/plugin';
import { acrossContexts } from '../llama/context-pool.js';
import type { GgufLease } from '../llama/model-pool.js';

/** What Dense needs from an embedder (its `Embedder` interface). */
export interface GgufEmbedder {
  embed(texts: string[]): Promise<Float32Array[]>;
  readonly dimension: number | undefined;
  readonly label: string;
  close(): Promise<void>;
}

export interface EmbedderSettings {
  maxLength: number;
  contextSize: number | undefined;
  contexts: number;
  /** CPU threads per context; 0: the default. */
  threads: number;
  normalize: boolean;
}

/** Tokens a context adds around a text ([CLS] ... [SEP], BOS ... EOS). */
const SPECIAL_TOKENS = 2;

/**
 * Opens `settings.contexts` embedding contexts on the leased model.
 *
 * @example
 * const embedder = await ggufEmbedder(lease, { maxLength: 512, contextSize: undefined, contexts: 1, normalize: true });
 */
export async function ggufEmbedder(
  lease: GgufLease,
  settings: EmbedderSettings,
): Promise<GgufEmbedder> {
  const { model } = lease;
  const contextSize = Math.min(
    settings.contextSize ?? settings.maxLength + 8,
    lease.facts.trainContext ?? Number.MAX_SAFE_INTEGER,
  );
  const limit = Math.max(1, Math.min(settings.maxLength, contextSize - 1) - SPECIAL_TOKENS);
  const contexts: LlamaEmbeddingContext[] = [];
  try {
    for (let i = 0; i < settings.contexts; i++)
      contexts.push(await model.createEmbeddingContext({ contextSize, batchSize: contextSize }));
  } catch (error) {
    await Promise.all(contexts.map((c) => c.dispose()));
    throw new IrserveError(
      'ERR_CONFIG',
      `cannot create ${settings.contexts} embedding context(s) of ${contextSize} tokens for ${model.filename ?? 'the model'}: ${(error as Error).message} (lower batch_size or context_size)`,
      { cause: error },
    );
  }
  const embedOne = async (context: LlamaEmbeddingContext, text: string): Promise<Float32Array> => {
    const tokens: Token[] = model.tokenize(text).slice(0, limit);
    const { vector } = await context.getEmbeddingFor(tokens);
    const out = Float32Array.from(vector);
    if (settings.normalize) normalize(out);
    return out;
  };
  return {
    embed: (texts) => acrossContexts(contexts, texts, embedOne),
    dimension: model.embeddingVectorSize,
    label: `the GGUF model ${lease.facts.info.metadata.general.name ?? model.filename ?? ''} on ${lease.runtime.backend}`,
    close: async () => {
      await Promise.all(contexts.map((c) => c.dispose()));
      await lease.release();
    },
  };
}

function normalize(vector: Float32Array): void {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
}
