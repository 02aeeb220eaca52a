/**
 * The building blocks of transformer graphs, over a GraphBuilder and a checkpoint's weights.
 * Token states travel as a `[tokens, hidden]` matrix (batch and sequence flattened), so a
 * linear layer is one `Gemm` over the weight as PyTorch stores it (`[out, in]`, `transB`):
 * no weight is transposed or copied. Only attention sees `[batch, sequence, hidden]`.
 */
import { float, type GraphBuilder } from './graph-builder.js';
import type { WeightReader } from './weight-reader.js';

const MS = { domain: 'com.microsoft' };

/** Hugging Face's activation names (`hidden_act`, `activation`) irserve builds. */
export const ACTIVATIONS = [
  'gelu',
  'gelu_python',
  'gelu_new',
  'gelu_fast',
  'gelu_pytorch_tanh',
  'gelu_accurate',
  'quick_gelu',
  'relu',
  'silu',
  'swish',
  'tanh',
  'sigmoid',
  'linear',
] as const;
export type Activation = (typeof ACTIVATIONS)[number];

export class Layers {
  constructor(
    readonly g: GraphBuilder,
    readonly w: WeightReader,
  ) {}

  /**
   * `x · Wᵀ + b` for `[tokens, in]` states and the weight `<prefix>.weight` `[out, in]`.
   *
   * @example layers.linear(x, 'bert.pooler.dense', 768, 768, 'hidden_size 768')
   */
  linear(
    x: string,
    prefix: string,
    dims: { in: number; out: number },
    why: string,
    bias: 'bias' | 'no-bias' | 'optional-bias' = 'bias',
  ): string {
    const weight = this.w.get(`${prefix}.weight`, [dims.out, dims.in], why);
    const b =
      bias === 'bias'
        ? this.w.get(`${prefix}.bias`, [dims.out], why)
        : bias === 'optional-bias'
          ? this.w.optional(`${prefix}.bias`, [dims.out], why)
          : undefined;
    return this.g.node('Gemm', b ? [x, weight, b] : [x, weight], { transB: 1 });
  }

  /** LayerNorm over the last axis with `<prefix>.weight` and `<prefix>.bias`. */
  layerNorm(x: string, prefix: string, dim: number, eps: number, why: string): string {
    const scale = this.w.get(`${prefix}.weight`, [dim], why);
    const bias = this.w.get(`${prefix}.bias`, [dim], why);
    return this.g.node('LayerNormalization', [x, scale, bias], { axis: -1, epsilon: float(eps) });
  }

  /** RMS norm over the last axis (`x / sqrt(mean(x²) + eps) · weight`), as T5 and Qwen. */
  rmsNorm(x: string, weight: string, dim: number, eps: number, why: string): string {
    const scale = this.w.get(weight, [dim], why);
    return this.g.node('SimplifiedLayerNormalization', [x, scale], {
      axis: -1,
      epsilon: float(eps),
    });
  }

  /** An activation by its Hugging Face name. */
  activation(x: string, name: Activation): string {
    const { g } = this;
    switch (name) {
      case 'gelu':
      case 'gelu_python':
        return g.node('Gelu', [x], {}, MS);
      case 'gelu_new':
      case 'gelu_fast':
      case 'gelu_pytorch_tanh':
      case 'gelu_accurate':
        return g.node('FastGelu', [x], {}, MS);
      case 'quick_gelu':
        return g.node('Mul', [x, g.node('Sigmoid', [this.scale(x, 1.702)])]);
      case 'relu':
        return g.node('Relu', [x]);
      case 'silu':
      case 'swish':
        return g.node('Mul', [x, g.node('Sigmoid', [x])]);
      case 'tanh':
        return g.node('Tanh', [x]);
      case 'sigmoid':
        return g.node('Sigmoid', [x]);
      case 'linear':
        return x;
    }
  }

  /** `x · factor`. */
  scale(x: string, factor: number): string {
    return this.g.node('Mul', [x, this.g.constant('float32', [factor], [])]);
  }

  /** An int64 constant vector (shapes, indices). */
  ints(values: readonly number[]): string {
    return this.g.constant('int64', values, [values.length]);
  }

  /** An int64 scalar constant. */
  int(value: number): string {
    return this.g.constant('int64', [value], []);
  }

  /** `x` reshaped to `shape` (a value name, or numbers with -1 for the rest). */
  reshape(x: string, shape: string | readonly number[]): string {
    return this.g.node('Reshape', [x, typeof shape === 'string' ? shape : this.ints(shape)]);
  }

  /**
   * Multi-head attention of `[batch, queries, width]` queries over `[batch, keys, width]` keys
   * and values (ONNX Runtime's fused `MultiHeadAttention`): `mask` is the `[batch, keys]` int32
   * padding mask; `causal` hides later positions; `bias` is added to the scores
   * (`[1, heads, queries, keys]`); `scale` multiplies them (default 1/√(width / heads)).
   */
  attention(
    q: string,
    k: string,
    v: string,
    mask: string,
    heads: number,
    options: { causal?: boolean; scale?: number; bias?: string } = {},
  ): string {
    return this.g.node(
      'MultiHeadAttention',
      options.bias ? [q, k, v, '', mask, options.bias] : [q, k, v, '', mask],
      {
        num_heads: heads,
        ...(options.causal ? { unidirectional: 1 } : {}),
        ...(options.scale !== undefined ? { scale: float(options.scale) } : {}),
      },
      MS,
    );
  }
}

/**
 * The activation named in config.json, or undefined when irserve does not build it.
 *
 * @example activationOf('gelu') // 'gelu'
 */
export function activationOf(name: unknown): Activation | undefined {
  return (ACTIVATIONS as readonly unknown[]).includes(name) ? (name as Activation) : undefined;
}
