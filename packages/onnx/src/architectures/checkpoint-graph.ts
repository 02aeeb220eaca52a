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
import { buildEncoderHead, encoderHeadOf, type EncoderHead } from './encoder-heads.js';

/** The `model_type`s irserve builds graphs for. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = [...BERT_FAMILY];

/** What a graph computes: an engine asks for the one it needs. */
export type GraphHead = EncoderHead;

export const GRAPH_HEADS: readonly GraphHead[] = ['hidden', 'classifier', 'masked-lm', 'colbert'];

export interface CheckpointGraph {
  /** The ModelProto. */
  readonly bytes: Uint8Array;
  /** The folder ONNX Runtime reads the weight files from. */
  readonly weightsFolder: string;
  readonly modelType: string;
  readonly head: GraphHead;
  /** The longest input the architecture takes (its position table), if it has a limit. */
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
  const spec = encoderSpec(modelType as BertFamilyType, reader, (name) => weights.has(name));
  const chosen = head ?? encoderHeadOf(architecturesOf(config), (name) => weights.has(name));
  buildEncoderHead(layers, spec, buildEncoder(layers, spec), chosen);
  return {
    bytes: builder.toBytes(),
    weightsFolder,
    modelType,
    head: chosen,
    maxTokens: maxTokens(spec),
  };
}

function architecturesOf(config: Record<string, unknown>): string[] {
  const value = config.architectures;
  return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
}
