/**
 * The Qwen decoders, as Hugging Face defines them (`qwen2`, `qwen3`): pre-norm layers with RMS
 * norm, rotary positions (rotate-half, `rope_theta`), grouped-query attention (`num_key_value_heads`
 * key/value heads, each shared by `num_attention_heads / num_key_value_heads` query heads), causal
 * masking on top of the padding mask, and a SwiGLU feed-forward (`down(act(gate(x)) · up(x))`).
 * Qwen3 adds an RMS norm over each head's queries and keys before the rotation and may have
 * `head_dim` ≠ `hidden_size / num_attention_heads`; Qwen2 has biases on q, k and v.
 *
 * Positions count each row's real tokens from 0, so left and right padding give the same
 * states (rotary positions are relative: Hugging Face's `0..S-1` on a left-padded row gives the
 * same attention).
 */
import type { Layers } from '../graph/layers.js';
import { activationOf, type Activation } from '../graph/layers.js';
import type { ConfigReader } from './config-reader.js';

export const DECODERS = ['qwen2', 'qwen3'] as const;
export type DecoderType = (typeof DECODERS)[number];

export interface DecoderSpec {
  readonly modelType: DecoderType;
  /** Where the decoder's tensors start (`model.` in a …ForCausalLM, none in a bare model). */
  readonly prefix: string;
  readonly vocab: number;
  readonly hidden: number;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly intermediate: number;
  readonly activation: Activation;
  readonly eps: number;
  readonly theta: number;
  /** Qwen3: RMS norm of each head's queries and keys. */
  readonly qkNorm: boolean;
  /** Qwen2 (and Qwen3 with `attention_bias`): biases on q, k, v. */
  readonly qkvBias: boolean;
  readonly oBias: boolean;
  readonly tiedEmbeddings: boolean;
}

/** The decoder's states and what heads need. */
export interface DecoderOutput {
  /** `[tokens, hidden]`, before the final norm. */
  readonly states: string;
  readonly shape: string;
  readonly shape3: string;
  readonly mask: string;
}

/**
 * The decoder's sizes from config.json, and the prefix its tensors carry.
 *
 * @example decoderSpec('qwen3', config, (name) => weights.has(name))
 */
export function decoderSpec(
  modelType: DecoderType,
  config: ConfigReader,
  has: (name: string) => boolean,
): DecoderSpec {
  const hidden = config.int('hidden_size');
  const heads = config.int('num_attention_heads');
  const kvHeads = config.int('num_key_value_heads', heads);
  if (heads === 0 || kvHeads === 0 || heads % kvHeads !== 0)
    throw config.error(
      `num_attention_heads ${heads} must be a multiple of num_key_value_heads ${kvHeads}`,
    );
  const act = config.string('hidden_act', 'silu');
  const activation = activationOf(act);
  if (!activation) throw config.error(`hidden_act "${act}" is not supported`);
  if (config.flag('use_sliding_window', false))
    throw config.error(
      'use_sliding_window true is not supported (irserve attends to every earlier token)',
    );
  const rope = (config.raw('rope_parameters') ?? config.raw('rope_scaling') ?? {}) as Record<
    string,
    unknown
  >;
  const ropeType = rope.rope_type ?? rope.type ?? 'default';
  if (ropeType !== 'default')
    throw config.error(
      `rope type ${JSON.stringify(ropeType)} is not supported (irserve builds "default" rotary positions)`,
    );
  const qwen3 = modelType === 'qwen3';
  // Qwen2's q, k and v always have biases (its config has no attention_bias); Qwen3's follow it.
  const attentionBias = !qwen3 || config.flag('attention_bias', false);
  return {
    modelType,
    prefix: ['model.', ''].find((p) => has(`${p}embed_tokens.weight`)) ?? 'model.',
    vocab: config.int('vocab_size'),
    hidden,
    layers: config.int('num_hidden_layers'),
    heads,
    kvHeads,
    headDim: config.int('head_dim', hidden / heads),
    intermediate: config.int('intermediate_size'),
    activation,
    eps: config.number('rms_norm_eps', 1e-6),
    theta:
      typeof rope.rope_theta === 'number' ? rope.rope_theta : config.number('rope_theta', 10000),
    qkNorm: qwen3,
    qkvBias: attentionBias,
    oBias: qwen3 && attentionBias,
    tiedEmbeddings: config.flag('tie_word_embeddings', false),
  };
}

/**
 * Declares the inputs and builds embeddings and layers (the final norm is the heads').
 *
 * @example const { states } = buildDecoder(layers, spec)
 */
export function buildDecoder(layers: Layers, spec: DecoderSpec): DecoderOutput {
  const { g, w } = layers;
  const ids = g.input('input_ids', 'int64', ['batch', 'sequence']);
  const mask = g.input('attention_mask', 'int64', ['batch', 'sequence']);
  const shape = g.node('Shape', [ids]);
  const shape3 = g.node('Concat', [shape, layers.ints([spec.hidden])], { axis: 0 });
  const table = w.get(
    `${spec.prefix}embed_tokens.weight`,
    [spec.vocab, spec.hidden],
    `vocab_size ${spec.vocab}, hidden_size ${spec.hidden}`,
  );
  let states = layers.reshape(g.node('Gather', [table, ids]), [-1, spec.hidden]);
  const rotary = rotaryTables(layers, spec, shape, mask);
  const mask32 = g.node('Cast', [mask], { to: 6 });
  for (let i = 0; i < spec.layers; i++)
    states = decoderLayer(layers, spec, i, states, { mask32, shape, rotary });
  return { states, shape, shape3, mask };
}

interface Rotary {
  positions: string;
  cos: string;
  sin: string;
}

/** Positions (each row's real tokens from 0) and the cos / sin tables of `0..S-1`. */
function rotaryTables(layers: Layers, spec: DecoderSpec, shape: string, mask: string): Rotary {
  const { g } = layers;
  const counted = g.node('Sub', [g.node('CumSum', [mask, layers.int(1)]), layers.int(1)]);
  const positions = g.node('Max', [counted, layers.int(0)]);
  const length = g.node('Gather', [shape, layers.int(1)]);
  const steps = g.node('Cast', [g.node('Range', [layers.int(0), length, layers.int(1)])], {
    to: 1,
  });
  const frequencies = g.constant('float32', inverseFrequencies(spec), [1, spec.headDim / 2]);
  const angles = g.node('Mul', [g.node('Unsqueeze', [steps, layers.ints([1])]), frequencies]);
  return { positions, cos: g.node('Cos', [angles]), sin: g.node('Sin', [angles]) };
}

/** `1 / theta^(2i / d)` computed as Hugging Face computes it, in float32 steps. */
function inverseFrequencies(spec: DecoderSpec): number[] {
  const d = spec.headDim;
  return Array.from({ length: d / 2 }, (_, i) =>
    Math.fround(1 / Math.fround(Math.pow(spec.theta, Math.fround((2 * i) / d)))),
  );
}

interface LayerInputs {
  mask32: string;
  shape: string;
  rotary: Rotary;
}

function decoderLayer(
  layers: Layers,
  spec: DecoderSpec,
  i: number,
  x: string,
  inputs: LayerInputs,
): string {
  const { g } = layers;
  const at = `${spec.prefix}layers.${i}.`;
  const H = spec.hidden;
  const why = `hidden_size ${H}`;
  const h = layers.rmsNorm(x, `${at}input_layernorm.weight`, H, spec.eps, why);
  const attended = attention(layers, spec, at, h, inputs);
  const residual = g.node('Add', [x, attended]);
  const h2 = layers.rmsNorm(residual, `${at}post_attention_layernorm.weight`, H, spec.eps, why);
  const ffn = { in: H, out: spec.intermediate };
  const whyFfn = `hidden_size ${H}, intermediate_size ${spec.intermediate}`;
  const gate = layers.linear(h2, `${at}mlp.gate_proj`, ffn, whyFfn, 'no-bias');
  const up = layers.linear(h2, `${at}mlp.up_proj`, ffn, whyFfn, 'no-bias');
  const product = g.node('Mul', [layers.activation(gate, spec.activation), up]);
  const down = layers.linear(
    product,
    `${at}mlp.down_proj`,
    { in: spec.intermediate, out: H },
    whyFfn,
    'no-bias',
  );
  return g.node('Add', [residual, down]);
}

function attention(
  layers: Layers,
  spec: DecoderSpec,
  at: string,
  h: string,
  inputs: LayerInputs,
): string {
  const { g } = layers;
  const { heads, kvHeads, headDim: D, hidden: H } = spec;
  const why = `hidden_size ${H}, ${heads} heads and ${kvHeads} key/value heads of ${D}`;
  const bias = spec.qkvBias ? 'bias' : 'no-bias';
  const project = (name: string, count: number) =>
    layers.linear(h, `${at}self_attn.${name}`, { in: H, out: count * D }, why, bias);
  let q = project('q_proj', heads);
  let k = project('k_proj', kvHeads);
  const v = project('v_proj', kvHeads);
  if (spec.qkNorm) {
    q = headNorm(layers, spec, q, `${at}self_attn.q_norm.weight`, heads);
    k = headNorm(layers, spec, k, `${at}self_attn.k_norm.weight`, kvHeads);
  }
  const to3 = (x: string, count: number) =>
    layers.reshape(x, g.node('Concat', [inputs.shape, layers.ints([count * D])], { axis: 0 }));
  const { positions, cos, sin } = inputs.rotary;
  const rotate = (x: string, count: number) =>
    g.node(
      'RotaryEmbedding',
      [to3(x, count), positions, cos, sin],
      { num_heads: count, interleaved: 0 },
      { domain: 'com.microsoft' },
    );
  const q3 = rotate(q, heads);
  const k3 = repeatHeads(layers, spec, rotate(k, kvHeads), inputs.shape);
  const v3 = repeatHeads(layers, spec, to3(v, kvHeads), inputs.shape);
  const attended = layers.attention(q3, k3, v3, inputs.mask32, heads, {
    causal: true,
    scale: 1 / Math.sqrt(D),
  });
  const o = layers.linear(
    layers.reshape(attended, [-1, heads * D]),
    `${at}self_attn.o_proj`,
    { in: heads * D, out: H },
    why,
    spec.oBias ? 'bias' : 'no-bias',
  );
  return o;
}

/** RMS norm of each head's `D` values (Qwen3's q_norm / k_norm). */
function headNorm(
  layers: Layers,
  spec: DecoderSpec,
  x: string,
  weight: string,
  count: number,
): string {
  const D = spec.headDim;
  const normed = layers.rmsNorm(layers.reshape(x, [-1, D]), weight, D, spec.eps, `head_dim ${D}`);
  return layers.reshape(normed, [-1, count * D]);
}

/** `[B, S, kv·D]` → `[B, S, heads·D]`: each key/value head serves its group of query heads. */
function repeatHeads(layers: Layers, spec: DecoderSpec, x: string, shape: string): string {
  const { heads, kvHeads, headDim: D } = spec;
  if (heads === kvHeads) return x;
  const { g } = layers;
  const split = g.node('Concat', [shape, layers.ints([kvHeads, 1, D])], { axis: 0 });
  const wide = g.node('Concat', [shape, layers.ints([kvHeads, heads / kvHeads, D])], { axis: 0 });
  const expanded = g.node('Expand', [layers.reshape(x, split), wide]);
  return layers.reshape(expanded, g.node('Concat', [shape, layers.ints([heads * D])], { axis: 0 }));
}
