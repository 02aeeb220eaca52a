/**
 * The BERT family of encoders, as Hugging Face defines them: `bert`, `roberta`, `xlm-roberta`,
 * `electra` and `distilbert`. One post-norm encoder with their differences:
 *
 * - positions: `0..S-1` (BERT, ELECTRA, DistilBERT); RoBERTa and XLM-R count only the tokens
 *   that are not `pad_token_id` and start after it (`cumsum(ids != pad) * (ids != pad) + pad`);
 * - token types: BERT and ELECTRA add `token_type_embeddings[token_type_ids]`; RoBERTa and
 *   XLM-R add row 0 (their one type); DistilBERT has none;
 * - ELECTRA's embeddings may be narrower than its layers (`embedding_size`), then projected;
 * - DistilBERT names its sizes `dim`, `n_layers`, ... and its layers differently, with a fixed
 *   layer-norm epsilon of 1e-12.
 */
import type { Layers } from '../graph/layers.js';
import { activationOf, type Activation } from '../graph/layers.js';
import type { ConfigReader } from './config-reader.js';

export const BERT_FAMILY = ['bert', 'roberta', 'xlm-roberta', 'electra', 'distilbert'] as const;
export type BertFamilyType = (typeof BERT_FAMILY)[number];

export interface EncoderSpec {
  readonly modelType: BertFamilyType;
  /** Where the encoder's tensors start (`bert.`, `roberta.`, ... or none). */
  readonly prefix: string;
  readonly vocab: number;
  readonly hidden: number;
  /** Width of the embeddings (ELECTRA's may differ from `hidden`). */
  readonly embedding: number;
  readonly layers: number;
  readonly heads: number;
  readonly intermediate: number;
  readonly activation: Activation;
  readonly eps: number;
  readonly positions: number;
  /** 0: no token types; 1: one type, always added; more: `token_type_ids` is an input. */
  readonly types: number;
  /** RoBERTa and XLM-R: positions count from `pad_token_id + 1`, pads get `pad_token_id`. */
  readonly padPositions: number | undefined;
}

/** The encoder's states and the shapes heads need. */
export interface EncoderOutput {
  /** `[tokens, hidden]`. */
  readonly states: string;
  /** `[batch, sequence]` as an int64 vector. */
  readonly shape: string;
  /** `[batch, sequence, hidden]` as an int64 vector, for reshaping the states. */
  readonly shape3: string;
}

const PREFIXES: Record<BertFamilyType, readonly string[]> = {
  bert: ['bert.', ''],
  roberta: ['roberta.', ''],
  'xlm-roberta': ['roberta.', 'xlm_roberta.', ''],
  electra: ['electra.', ''],
  distilbert: ['distilbert.', ''],
};

/**
 * The encoder's sizes from config.json, and the prefix its tensors carry in the checkpoint.
 *
 * @example encoderSpec('bert', config, (name) => weights.has(name))
 */
export function encoderSpec(
  modelType: BertFamilyType,
  config: ConfigReader,
  has: (name: string) => boolean,
): EncoderSpec {
  const distil = modelType === 'distilbert';
  const hidden = config.int(distil ? ['dim', 'hidden_size'] : 'hidden_size');
  const act = config.string(distil ? 'activation' : 'hidden_act', 'gelu');
  const activation = activationOf(act);
  if (!activation)
    throw config.error(`${distil ? 'activation' : 'hidden_act'} "${act}" is not supported`);
  const positionType = config.string('position_embedding_type', 'absolute');
  if (positionType !== 'absolute')
    throw config.error(
      `position_embedding_type "${positionType}" is not supported (irserve builds "absolute")`,
    );
  const heads = config.int(distil ? ['n_heads', 'num_attention_heads'] : 'num_attention_heads');
  if (heads === 0 || hidden % heads !== 0)
    throw config.error(
      `the hidden size ${hidden} is not a multiple of the ${heads} attention heads`,
    );
  const roberta = modelType === 'roberta' || modelType === 'xlm-roberta';
  const word = 'embeddings.word_embeddings.weight';
  const prefix = PREFIXES[modelType].find((p) => has(`${p}${word}`)) ?? PREFIXES[modelType][0]!;
  return {
    modelType,
    prefix,
    vocab: config.int('vocab_size'),
    hidden,
    embedding: modelType === 'electra' ? config.int('embedding_size', hidden) : hidden,
    layers: config.int(distil ? ['n_layers', 'num_hidden_layers'] : 'num_hidden_layers'),
    heads,
    intermediate: config.int(distil ? ['hidden_dim', 'intermediate_size'] : 'intermediate_size'),
    activation,
    eps: distil ? 1e-12 : config.number('layer_norm_eps', 1e-12),
    positions: config.int('max_position_embeddings', 512),
    types: distil ? 0 : config.int('type_vocab_size', 2),
    padPositions: roberta ? config.int('pad_token_id', 1) : undefined,
  };
}

/** The longest input the position table allows. */
export function maxTokens(spec: EncoderSpec): number {
  return spec.positions - (spec.padPositions === undefined ? 0 : spec.padPositions + 1);
}

/**
 * Declares the graph's inputs and builds embeddings and layers.
 *
 * @example const { states, shape3 } = buildEncoder(layers, spec)
 */
export function buildEncoder(layers: Layers, spec: EncoderSpec): EncoderOutput {
  const { g } = layers;
  const ids = g.input('input_ids', 'int64', ['batch', 'sequence']);
  const mask = g.input('attention_mask', 'int64', ['batch', 'sequence']);
  const types = spec.types > 1 ? g.input('token_type_ids', 'int64', ['batch', 'sequence']) : '';
  const shape = g.node('Shape', [ids]);
  const shape3 = g.node('Concat', [shape, layers.ints([spec.hidden])], { axis: 0 });
  let states = layers.reshape(embeddings(layers, spec, ids, shape, types), [-1, spec.embedding]);
  if (spec.embedding !== spec.hidden)
    states = layers.linear(
      states,
      `${spec.prefix}embeddings_project`,
      { in: spec.embedding, out: spec.hidden },
      `embedding_size ${spec.embedding}, hidden_size ${spec.hidden}`,
    );
  const mask32 = g.node('Cast', [mask], { to: 6 });
  for (let i = 0; i < spec.layers; i++)
    states = encoderLayer(layers, spec, i, states, mask32, shape3);
  return { states, shape, shape3 };
}

function embeddings(
  layers: Layers,
  spec: EncoderSpec,
  ids: string,
  shape: string,
  types: string,
): string {
  const { g, w } = layers;
  const at = `${spec.prefix}embeddings.`;
  const E = spec.embedding;
  const why = `vocab_size ${spec.vocab}, ${spec.embedding === spec.hidden ? 'hidden_size' : 'embedding_size'} ${E}`;
  const table = w.get(`${at}word_embeddings.weight`, [spec.vocab, E], why);
  let sum = g.node('Gather', [table, ids]);
  const positionTable = w.get(
    `${at}position_embeddings.weight`,
    [spec.positions, E],
    `max_position_embeddings ${spec.positions}`,
  );
  sum = g.node('Add', [
    sum,
    g.node('Gather', [positionTable, positionIds(layers, spec, ids, shape)]),
  ]);
  if (spec.types > 0) {
    const typeTable = w.get(
      `${at}token_type_embeddings.weight`,
      [spec.types, E],
      `type_vocab_size ${spec.types}`,
    );
    sum = g.node('Add', [sum, g.node('Gather', [typeTable, types || layers.int(0)])]);
  }
  return layers.layerNorm(sum, `${at}LayerNorm`, E, spec.eps, why);
}

/** `[sequence]` positions 0..S-1, or RoBERTa's `[batch, sequence]` ones counted past the pads. */
function positionIds(layers: Layers, spec: EncoderSpec, ids: string, shape: string): string {
  const { g } = layers;
  if (spec.padPositions === undefined) {
    const length = g.node('Gather', [shape, layers.int(1)]);
    return g.node('Range', [layers.int(0), length, layers.int(1)]);
  }
  const pad = layers.int(spec.padPositions);
  const real = g.node('Cast', [g.node('Not', [g.node('Equal', [ids, pad])])], { to: 7 });
  const counted = g.node('Mul', [g.node('CumSum', [real, layers.int(1)]), real]);
  return g.node('Add', [counted, pad]);
}

/** The tensor names of layer `i`. */
function layerNames(spec: EncoderSpec, i: number): Record<string, string> {
  if (spec.modelType === 'distilbert') {
    const at = `${spec.prefix}transformer.layer.${i}.`;
    return {
      q: `${at}attention.q_lin`,
      k: `${at}attention.k_lin`,
      v: `${at}attention.v_lin`,
      o: `${at}attention.out_lin`,
      norm1: `${at}sa_layer_norm`,
      up: `${at}ffn.lin1`,
      down: `${at}ffn.lin2`,
      norm2: `${at}output_layer_norm`,
    };
  }
  const at = `${spec.prefix}encoder.layer.${i}.`;
  return {
    q: `${at}attention.self.query`,
    k: `${at}attention.self.key`,
    v: `${at}attention.self.value`,
    o: `${at}attention.output.dense`,
    norm1: `${at}attention.output.LayerNorm`,
    up: `${at}intermediate.dense`,
    down: `${at}output.dense`,
    norm2: `${at}output.LayerNorm`,
  };
}

function encoderLayer(
  layers: Layers,
  spec: EncoderSpec,
  i: number,
  x: string,
  mask32: string,
  shape3: string,
): string {
  const { g } = layers;
  const names = layerNames(spec, i);
  const H = spec.hidden;
  const square = { in: H, out: H };
  const why = `hidden_size ${H}`;
  const [q, k, v] = [names.q!, names.k!, names.v!].map((name) =>
    layers.reshape(layers.linear(x, name, square, why), shape3),
  );
  const attended = layers.attention(q!, k!, v!, mask32, spec.heads);
  const projected = layers.linear(layers.reshape(attended, [-1, H]), names.o!, square, why);
  const h = layers.layerNorm(g.node('Add', [projected, x]), names.norm1!, H, spec.eps, why);
  const whyFfn = `hidden_size ${H}, intermediate_size ${spec.intermediate}`;
  const up = layers.linear(h, names.up!, { in: H, out: spec.intermediate }, whyFfn);
  const down = layers.linear(
    layers.activation(up, spec.activation),
    names.down!,
    { in: spec.intermediate, out: H },
    whyFfn,
  );
  return layers.layerNorm(g.node('Add', [down, h]), names.norm2!, H, spec.eps, why);
}
