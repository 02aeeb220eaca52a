/**
 * The ONNX graph of a checkpoint folder (config.json + safetensors or pytorch_model.bin), built
 * in TypeScript from config.json's `model_type` and the head an engine asks for. The graph holds
 * no weights: its initialisers point into the weight files, which ONNX Runtime reads from their
 * folder when the session is created.
 */
import { modelError } from '../errors.js';
import type { Weights } from '../checkpoint/weights.js';
import { GraphBuilder } from '../graph/graph-builder.js';
import { Layers } from '../graph/layers.js';
import { WeightReader } from '../graph/weight-reader.js';
import {
  BERT_FAMILY,
  buildEncoder,
  encoderSpec,
  maxTokens,
  type BertFamilyType,
} from './bert-family.js';
import { ConfigReader } from './config-reader.js';
import { buildDecoderHead, type DecoderHead } from './decoder-heads.js';
import { buildEncoderHead, encoderHeadOf, type EncoderHead } from './encoder-heads.js';
import { buildDecoder, decoderSpec, DECODERS, type DecoderType } from './qwen.js';
import { buildFirstStep, SEQ2SEQ, t5Spec } from './t5.js';

/** The `model_type`s irserve builds graphs for. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = [...BERT_FAMILY, ...DECODERS, ...SEQ2SEQ];

/**
 * What a graph computes: an engine asks for the one it needs (`first-step`: an
 * encoder-decoder's logits at the decoder's first step).
 */
export type GraphHead = EncoderHead | DecoderHead | 'first-step';

const ENCODER_HEADS: readonly EncoderHead[] = ['hidden', 'classifier', 'masked-lm', 'colbert'];
const DECODER_HEADS: readonly DecoderHead[] = ['hidden', 'next-token', 'classifier'];

/** Options of a graph: `tokens`, the vocabulary ids a `next-token` head keeps (default all). */
export interface GraphOptions {
  tokens?: readonly number[];
}

export interface CheckpointGraph {
  /** The ModelProto. */
  readonly bytes: Uint8Array;
  /** The folder ONNX Runtime reads the weight files from. */
  readonly weightsFolder: string;
  readonly modelType: string;
  readonly head: GraphHead;
  /** The longest input the architecture takes (its position table, a decoder's trained length). */
  readonly maxTokens: number | undefined;
}

/**
 * Builds the graph of `head` (default: the one config.json's `architectures` implies).
 *
 * @example const graph = buildCheckpointGraph(folder, config, await loadWeights(folder), 'hidden')
 */
export function buildCheckpointGraph(
  folder: string,
  config: Record<string, unknown>,
  weights: Weights,
  head?: GraphHead,
  options: GraphOptions = {},
): CheckpointGraph {
  const reader = new ConfigReader(folder, config);
  const modelType = config.model_type;
  const weightsFolder = weights.directory;
  if (weightsFolder === undefined)
    throw modelError(
      folder,
      `the weight files resolve to several directories (${weights.files.join(', ')}); ONNX Runtime reads them from one`,
    );
  if (typeof modelType !== 'string' || !SUPPORTED_MODEL_TYPES.includes(modelType))
    throw modelError(
      folder,
      `config.json's model_type ${JSON.stringify(modelType)} is not an architecture irserve builds (it builds ${SUPPORTED_MODEL_TYPES.join(', ')}); export the model to ONNX instead (docs/models.md)`,
    );
  const builder = new GraphBuilder(`${modelType} (irserve)`);
  const layers = new Layers(builder, new WeightReader(builder, weights));
  const has = (name: string) => weights.has(name);
  const architectures = architecturesOf(config);
  const decoder = (DECODERS as readonly string[]).includes(modelType);
  const seq2seq = (SEQ2SEQ as readonly string[]).includes(modelType);
  const chosen =
    head ??
    (seq2seq
      ? 'first-step'
      : decoder
        ? decoderHeadOf(architectures)
        : encoderHeadOf(architectures, has));
  const heads: readonly GraphHead[] = seq2seq
    ? ['first-step']
    : decoder
      ? DECODER_HEADS
      : ENCODER_HEADS;
  if (!heads.includes(chosen))
    throw modelError(
      folder,
      `a ${modelType} checkpoint has no ${chosen} head (irserve builds ${heads.join(', ')} for it)`,
    );
  let limit: number | undefined;
  if (seq2seq) buildFirstStep(layers, t5Spec(reader), options.tokens);
  else if (decoder) {
    const spec = decoderSpec(modelType as DecoderType, reader, has);
    buildDecoderHead(
      layers,
      spec,
      buildDecoder(layers, spec),
      chosen as DecoderHead,
      options.tokens,
    );
    limit = reader.int('max_position_embeddings', 32768);
  } else {
    const spec = encoderSpec(modelType as BertFamilyType, reader, has);
    buildEncoderHead(layers, spec, buildEncoder(layers, spec), chosen as EncoderHead);
    limit = maxTokens(spec);
  }
  return { bytes: builder.toBytes(), weightsFolder, modelType, head: chosen, maxTokens: limit };
}

/** The head a decoder's class name implies. */
function decoderHeadOf(architectures: readonly string[]): DecoderHead {
  if (architectures.some((a) => a.endsWith('ForSequenceClassification'))) return 'classifier';
  if (architectures.some((a) => a.endsWith('ForCausalLM'))) return 'next-token';
  return 'hidden';
}

function architecturesOf(config: Record<string, unknown>): string[] {
  const value = config.architectures;
  return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
}
