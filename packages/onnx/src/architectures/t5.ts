/**
 * T5 and mT5 encoder-decoders, as Hugging Face defines them, for rerankers that read the
 * decoder's first step (monoT5, mT5 mMARCO): one graph runs the encoder over the prompt and one
 * decoder step from `decoder_start_token_id`, and outputs `logits [batch, n]` for the answer
 * tokens asked for (or the whole vocabulary).
 *
 * T5's numerics: RMS layer norms without a bias (`layer_norm_epsilon`), attention without the
 * 1/√d scaling, a learned relative position bias (log-spaced buckets, bidirectional in the
 * encoder) added in every encoder layer and taken from the first, a ReLU feed-forward (T5
 * v1.0) or a gated one (`gated-gelu`: the tanh GELU, T5 v1.1 and mT5), and, when the output
 * head is tied to the embeddings (T5), the decoder's states scaled by `d_model^-0.5` first. A
 * decoder's first step attends to itself alone, so its self-attention is `o(v(x))` whatever
 * its queries, keys and position bias are.
 */
import type { Layers } from '../graph/layers.js';
import { activationOf, type Activation } from '../graph/layers.js';
import type { ConfigReader } from './config-reader.js';

export const SEQ2SEQ = ['t5', 'mt5'] as const;

/** The names the shared embedding table goes by; a file holds at least one (ties dropped). */
const EMBEDDINGS = ['shared.weight', 'encoder.embed_tokens.weight', 'decoder.embed_tokens.weight'];
export type Seq2SeqType = (typeof SEQ2SEQ)[number];

export interface T5Spec {
  readonly vocab: number;
  readonly dModel: number;
  /** `num_heads · d_kv`, the attention width (may differ from d_model). */
  readonly inner: number;
  readonly heads: number;
  readonly dFf: number;
  readonly layers: number;
  readonly decoderLayers: number;
  readonly buckets: number;
  readonly maxDistance: number;
  readonly eps: number;
  readonly gated: boolean;
  readonly activation: Activation;
  readonly tied: boolean;
  readonly startToken: number;
}

/**
 * The model's sizes from config.json.
 *
 * @example t5Spec(config)
 */
export function t5Spec(config: ConfigReader): T5Spec {
  const proj = config.string('feed_forward_proj', 'relu');
  const gated = proj.startsWith('gated-');
  const name = proj === 'gated-gelu' ? 'gelu_new' : gated ? proj.slice(6) : proj;
  const activation = activationOf(name);
  if (!activation) throw config.error(`feed_forward_proj "${proj}" is not supported`);
  const heads = config.int('num_heads');
  const layers = config.int('num_layers');
  return {
    vocab: config.int('vocab_size'),
    dModel: config.int('d_model'),
    inner: heads * config.int('d_kv'),
    heads,
    dFf: config.int('d_ff'),
    layers,
    decoderLayers: config.int('num_decoder_layers', layers),
    buckets: config.int('relative_attention_num_buckets', 32),
    maxDistance: config.int('relative_attention_max_distance', 128),
    eps: config.number('layer_norm_epsilon', 1e-6),
    gated,
    activation,
    tied: config.flag('tie_word_embeddings', true),
    startToken: config.int('decoder_start_token_id', 0),
  };
}

/**
 * The encoder and the decoder's first step; declares the inputs and `logits`.
 *
 * @example buildFirstStep(layers, spec, [6136, 1176])
 */
export function buildFirstStep(layers: Layers, spec: T5Spec, tokens?: readonly number[]): void {
  const { g, w } = layers;
  const ids = g.input('input_ids', 'int64', ['batch', 'sequence']);
  const mask = g.node('Cast', [g.input('attention_mask', 'int64', ['batch', 'sequence'])], {
    to: 6,
  });
  const shape = g.node('Shape', [ids]);
  const embedName = EMBEDDINGS.find((name) => w.has(name)) ?? 'shared.weight';
  const why = `vocab_size ${spec.vocab}, d_model ${spec.dModel}`;
  const table = w.get(embedName, [spec.vocab, spec.dModel], why);
  const embedded = layers.reshape(g.node('Gather', [table, ids]), [-1, spec.dModel]);
  const memory = encode(layers, spec, embedded, { shape, mask });
  const batch = g.node('Unsqueeze', [
    g.node('Gather', [shape, layers.int(0)], { axis: 0 }),
    layers.ints([0]),
  ]);
  const start = g.node('Expand', [
    g.node('Gather', [table, layers.ints([spec.startToken])]),
    g.node('Concat', [batch, layers.ints([spec.dModel])], { axis: 0 }),
  ]);
  const queryShape = g.node('Concat', [batch, layers.ints([1, spec.inner])], { axis: 0 });
  let out = firstStep(layers, spec, start, queryShape, memory, mask);
  // A tied head is the embedding table whatever the file holds (a pytorch_model.bin keeps a
  // copy as lm_head.weight), and Hugging Face scales the states before it.
  if (spec.tied) out = layers.scale(out, spec.dModel ** -0.5);
  let head = spec.tied
    ? table
    : w.get('lm_head.weight', [spec.vocab, spec.dModel], `${why}, lm_head`);
  if (tokens) head = g.node('Gather', [head, g.constant('int64', tokens, [tokens.length])]);
  g.node('Gemm', [out, head], { transB: 1 }, { names: ['logits'] });
  g.output('logits', 'float32', ['batch', tokens?.length ?? spec.vocab]);
}

/** Rows of states (`[batch · length, d_model]`) and the `[batch, length, inner]` shape. */
interface Stream {
  readonly rows: string;
  readonly shape: string;
}

/** The encoder's final states (`[batch · sequence, d_model]` rows). */
function encode(
  layers: Layers,
  spec: T5Spec,
  embedded: string,
  input: { shape: string; mask: string },
): Stream {
  const { g } = layers;
  const bias = positionBias(layers, spec, input.shape);
  const inner = g.node('Concat', [input.shape, layers.ints([spec.inner])], { axis: 0 });
  let x = embedded;
  for (let i = 0; i < spec.layers; i++) {
    const at = `encoder.block.${i}.layer.`;
    const h = { rows: norm(layers, spec, x, `${at}0.layer_norm.weight`), shape: inner };
    x = g.node('Add', [x, attend(layers, spec, `${at}0.SelfAttention`, h, h, input.mask, bias)]);
    const ff = feedForward(
      layers,
      spec,
      norm(layers, spec, x, `${at}1.layer_norm.weight`),
      `${at}1`,
    );
    x = g.node('Add', [x, ff]);
  }
  return { rows: norm(layers, spec, x, 'encoder.final_layer_norm.weight'), shape: inner };
}

/**
 * The decoder's states after its first step, `[batch, d_model]`: self-attention over that one
 * position is `o(v(x))`, then attention over the encoder's states and the feed-forward.
 */
function firstStep(
  layers: Layers,
  spec: T5Spec,
  start: string,
  queryShape: string,
  memory: Stream,
  mask: string,
): string {
  const { g } = layers;
  let y = start;
  for (let i = 0; i < spec.decoderLayers; i++) {
    const at = `decoder.block.${i}.layer.`;
    const h = norm(layers, spec, y, `${at}0.layer_norm.weight`);
    const self = project(layers, spec, h, `${at}0.SelfAttention.v`, 'in');
    y = g.node('Add', [y, project(layers, spec, self, `${at}0.SelfAttention.o`, 'out')]);
    const query = { rows: norm(layers, spec, y, `${at}1.layer_norm.weight`), shape: queryShape };
    y = g.node('Add', [y, attend(layers, spec, `${at}1.EncDecAttention`, query, memory, mask)]);
    const ff = feedForward(
      layers,
      spec,
      norm(layers, spec, y, `${at}2.layer_norm.weight`),
      `${at}2`,
    );
    y = g.node('Add', [y, ff]);
  }
  return norm(layers, spec, y, 'decoder.final_layer_norm.weight');
}

/** T5Attention (no 1/√d scaling) of `from` over `over`, projected back to d_model rows. */
function attend(
  layers: Layers,
  spec: T5Spec,
  at: string,
  from: Stream,
  over: Stream,
  mask: string,
  bias?: string,
): string {
  const split = (x: Stream, p: string) =>
    layers.reshape(project(layers, spec, x.rows, `${at}.${p}`, 'in'), x.shape);
  const attended = layers.attention(
    split(from, 'q'),
    split(over, 'k'),
    split(over, 'v'),
    mask,
    spec.heads,
    {
      scale: 1,
      ...(bias ? { bias } : {}),
    },
  );
  return project(layers, spec, layers.reshape(attended, [-1, spec.inner]), `${at}.o`, 'out');
}

function norm(layers: Layers, spec: T5Spec, x: string, weight: string): string {
  return layers.rmsNorm(x, weight, spec.dModel, spec.eps, `d_model ${spec.dModel}`);
}

/** A bias-free linear layer into (`in`) or out of (`out`) the attention width. */
function project(
  layers: Layers,
  spec: T5Spec,
  x: string,
  prefix: string,
  side: 'in' | 'out',
): string {
  const dims =
    side === 'in' ? { in: spec.dModel, out: spec.inner } : { in: spec.inner, out: spec.dModel };
  return layers.linear(
    x,
    prefix,
    dims,
    `d_model ${spec.dModel}, num_heads × d_kv ${spec.inner}`,
    'no-bias',
  );
}

function feedForward(layers: Layers, spec: T5Spec, h: string, at: string): string {
  const why = `d_model ${spec.dModel}, d_ff ${spec.dFf}`;
  const up = { in: spec.dModel, out: spec.dFf };
  const name = `${at}.DenseReluDense`;
  const hidden = spec.gated
    ? layers.g.node('Mul', [
        layers.activation(layers.linear(h, `${name}.wi_0`, up, why, 'no-bias'), spec.activation),
        layers.linear(h, `${name}.wi_1`, up, why, 'no-bias'),
      ])
    : layers.activation(layers.linear(h, `${name}.wi`, up, why, 'no-bias'), spec.activation);
  return layers.linear(hidden, `${name}.wo`, { in: spec.dFf, out: spec.dModel }, why, 'no-bias');
}

/**
 * T5's bucket of each distance `0..relative_attention_max_distance` (bidirectional: half the
 * buckets for each direction), exact below a quarter of the buckets and log-spaced above, in
 * the float32 steps Hugging Face takes (`_relative_position_bucket`); farther distances share
 * the last bucket.
 *
 * @example distanceBuckets({ buckets: 32, maxDistance: 128 })[20] // 10
 */
export function distanceBuckets(spec: Pick<T5Spec, 'buckets' | 'maxDistance'>): number[] {
  const half = Math.floor(spec.buckets / 2);
  const exact = Math.floor(half / 2);
  const f = Math.fround;
  const span = f(Math.log(spec.maxDistance / exact));
  return Array.from({ length: spec.maxDistance + 1 }, (_, n) => {
    if (n < exact) return n;
    const scaled = f(f(f(Math.log(f(n / exact))) / span) * (half - exact));
    return Math.min(exact + Math.trunc(scaled), half - 1);
  });
}

/**
 * `[1, heads, S, S]`: the encoder's relative position bias, the first layer's table looked up
 * at the bucket of `key position − query position` (later positions in the upper half).
 */
function positionBias(layers: Layers, spec: T5Spec, shape: string): string {
  const { g, w } = layers;
  const length = g.node('Gather', [shape, layers.int(1)]);
  const steps = g.node('Range', [layers.int(0), length, layers.int(1)]);
  const relative = g.node('Sub', [
    g.node('Unsqueeze', [steps, layers.ints([0])]),
    g.node('Unsqueeze', [steps, layers.ints([1])]),
  ]);
  const half = Math.floor(spec.buckets / 2);
  const side = g.node('Mul', [
    g.node('Cast', [g.node('Greater', [relative, layers.int(0)])], { to: 7 }),
    layers.int(half),
  ]);
  const buckets = distanceBuckets(spec);
  const distance = g.node('Min', [g.node('Abs', [relative]), layers.int(spec.maxDistance)]);
  const byDistance = g.node('Gather', [layers.ints(buckets), distance]);
  const bucket = g.node('Add', [side, byDistance]);
  const table = w.get(
    'encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight',
    [spec.buckets, spec.heads],
    `relative_attention_num_buckets ${spec.buckets}, num_heads ${spec.heads}`,
  );
  const bias = g.node('Transpose', [g.node('Gather', [table, bucket])], { perm: [2, 0, 1] });
  return g.node('Unsqueeze', [bias, layers.ints([0])]);
}
