/**
 * What the decoders' graphs output, by head:
 *
 * - `hidden`: `last_hidden_state [batch, sequence, hidden]` after the final norm (embedders such
 *   as Qwen3-Embedding pool the last token);
 * - `next-token`: `logits [batch, n]`, the language-model head at each row's last real token:
 *   over the whole vocabulary, or over the `tokens` asked for (a yes/no reranker needs two, so
 *   the rest of `lm_head` is never multiplied, nor kept);
 * - `classifier`: `logits [batch, labels]` of a …ForSequenceClassification's `score` at each
 *   row's last real token.
 */
import type { Layers } from '../graph/layers.js';
import type { DecoderOutput, DecoderSpec } from './qwen.js';

export type DecoderHead = 'hidden' | 'next-token' | 'classifier';

/**
 * Builds `head` over the decoder's states and declares the graph's output.
 *
 * @example buildDecoderHead(layers, spec, decoded, 'next-token', [9693, 2152])
 */
export function buildDecoderHead(
  layers: Layers,
  spec: DecoderSpec,
  decoded: DecoderOutput,
  head: DecoderHead,
  tokens?: readonly number[],
): void {
  const { g, w } = layers;
  const H = spec.hidden;
  const norm = (x: string) =>
    layers.rmsNorm(x, `${spec.prefix}norm.weight`, H, spec.eps, `hidden_size ${H}`);
  if (head === 'hidden') {
    g.node('Reshape', [norm(decoded.states), decoded.shape3], {}, { names: ['last_hidden_state'] });
    g.output('last_hidden_state', 'float32', ['batch', 'sequence', H]);
    return;
  }
  const last = norm(lastTokens(layers, decoded));
  if (head === 'classifier') {
    const labels = w.shapeOf('score.weight')?.[0];
    if (labels === undefined)
      throw w.error(
        'tensor score.weight is missing: a sequence-classification head (…ForSequenceClassification) is needed; a causal LM reranks with its next-token logits (mode "yes_no")',
      );
    const logits = layers.linear(
      last,
      'score',
      { in: H, out: labels },
      'score [labels, hidden_size]',
      'no-bias',
    );
    g.node('Identity', [logits], {}, { names: ['logits'] });
    g.output('logits', 'float32', ['batch', labels]);
    return;
  }
  const tied = `${spec.prefix}embed_tokens.weight`;
  const name = w.has('lm_head.weight') || !spec.tiedEmbeddings ? 'lm_head.weight' : tied;
  let weight = w.get(name, [spec.vocab, H], `vocab_size ${spec.vocab}, a language-model head`);
  if (tokens) weight = g.node('Gather', [weight, g.constant('int64', tokens, [tokens.length])]);
  g.node('Gemm', [last, weight], { transB: 1 }, { names: ['logits'] });
  g.output('logits', 'float32', ['batch', tokens?.length ?? spec.vocab]);
}

/** `[batch, hidden]`: the states of each row's last real token (left or right padding). */
function lastTokens(layers: Layers, decoded: DecoderOutput): string {
  const { g } = layers;
  const length = g.node('Gather', [decoded.shape, layers.int(1)]);
  const batch = g.node('Gather', [decoded.shape, layers.int(0)]);
  const steps = g.node('Range', [
    layers.int(1),
    g.node('Add', [length, layers.int(1)]),
    layers.int(1),
  ]);
  const ranked = g.node('Cast', [g.node('Mul', [decoded.mask, steps])], { to: 6 });
  const last = g.node('ArgMax', [ranked], { axis: 1, keepdims: 0 });
  const rows = g.node('Mul', [g.node('Range', [layers.int(0), batch, layers.int(1)]), length]);
  return g.node('Gather', [decoded.states, g.node('Add', [rows, last])]);
}
