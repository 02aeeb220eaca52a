/**
 * What a GGUF file is, read from its header before anything is loaded: an embedding model (a
 * pooling type other than none and rank), a ranking model (a `cls.output` / `cls` head), or
 * neither. A service naming the wrong kind is refused with what the file is.
 */
import type { GgufFileInfo } from 'node-llama-cpp';
import { IrserveError } from 'irserve/plugin';

export type ModelRole = 'embedding' | 'ranking';

/** llama.cpp's pooling types, by the number GGUF stores. */
const POOLING = ['none', 'mean', 'cls', 'last', 'rank'] as const;

export interface ModelFacts {
  readonly architecture: string;
  readonly pooling: string | undefined;
  readonly hasRankingHead: boolean;
  readonly trainContext: number | undefined;
  readonly info: GgufFileInfo;
}

/**
 * Reads the header of `path`; ERR_CONFIG when it is missing or not a GGUF file.
 *
 * @example
 * const facts = await readModelFacts('models/qwen3-embedding-0.6b-f16.gguf');
 */
export async function readModelFacts(path: string): Promise<ModelFacts> {
  const { readGgufFileInfo } = await import('node-llama-cpp');
  let info: GgufFileInfo;
  try {
    info = await readGgufFileInfo(path, { sourceType: 'filesystem', logWarnings: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new IrserveError(
      'ERR_CONFIG',
      code === 'ENOENT'
        ? `model_path: no file at ${path}`
        : `model_path: ${path} is not a readable GGUF file (${(error as Error).message})`,
      { cause: error },
    );
  }
  const metadata = info.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
  const architecture = String(info.metadata.general.architecture);
  const section = metadata[architecture] ?? {};
  const poolingType = section.pooling_type;
  const context = section.context_length;
  const tensors = info.fullTensorInfo ?? [];
  return {
    architecture,
    pooling:
      typeof poolingType === 'number' ? (POOLING[poolingType] ?? String(poolingType)) : undefined,
    hasRankingHead: tensors.some((t) => t.name === 'cls.output.weight' || t.name === 'cls.weight'),
    trainContext: typeof context === 'number' ? context : undefined,
    info,
  };
}

/**
 * Throws ERR_CONFIG when the model cannot serve `role`, saying what it is instead.
 *
 * @example
 * checkRole(facts, 'embedding', 'models/reranker.gguf');
 */
export function checkRole(facts: ModelFacts, role: ModelRole, path: string): void {
  const what = `${path} (architecture ${facts.architecture}, pooling ${facts.pooling ?? 'not set'})`;
  if (role === 'ranking' && !facts.hasRankingHead)
    throw new IrserveError(
      'ERR_CONFIG',
      `model_path: ${what} is not a ranking model: it has no cls.output / cls head (use a reranker GGUF such as bge-reranker or Qwen3-Reranker)`,
    );
  if (role === 'embedding' && facts.pooling === 'rank')
    throw new IrserveError(
      'ERR_CONFIG',
      `model_path: ${what} is a ranking model; serve it with the GgufReranker engine`,
    );
  if (role === 'embedding' && (facts.pooling === undefined || facts.pooling === 'none'))
    throw new IrserveError(
      'ERR_CONFIG',
      `model_path: ${what} is not an embedding model: its GGUF metadata sets no ${facts.architecture}.pooling_type (a text-generation or token model); use an embedding GGUF such as Qwen3-Embedding or bge-m3`,
    );
}
