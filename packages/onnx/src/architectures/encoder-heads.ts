/**
 * What the BERT family's graphs output, by head:
 *
 * - `hidden`: `last_hidden_state [batch, sequence, hidden]` (embedders pool it);
 * - `classifier`: `logits [batch, labels]` of the sequence-classification head on the first
 *   token, each architecture's own (BERT: pooler tanh then a linear layer; RoBERTa / XLM-R:
 *   dense, tanh, out_proj; ELECTRA: dense, GELU, out_proj; DistilBERT: pre_classifier, ReLU);
 * - `masked-lm`: `logits [batch, sequence, vocab]` of the masked-LM head (SPLADE pools them);
 * - `colbert`: `token_embeddings [batch, sequence, dim]`, the hidden states through ColBERT's
 *   `linear.weight` (`dim` from the weight).
 */
import type { Layers } from '../graph/layers.js';
import type { EncoderOutput, EncoderSpec } from './bert-family.js';

export type EncoderHead = 'hidden' | 'classifier' | 'masked-lm' | 'colbert';

/**
 * Builds `head` over the encoder's states and declares the graph's output.
 *
 * @example buildEncoderHead(layers, spec, encoded, 'classifier')
 */
export function buildEncoderHead(
  layers: Layers,
  spec: EncoderSpec,
  encoded: EncoderOutput,
  head: EncoderHead,
): void {
  const { g } = layers;
  switch (head) {
    case 'hidden':
      g.node('Reshape', [encoded.states, encoded.shape3], {}, { names: ['last_hidden_state'] });
      g.output('last_hidden_state', 'float32', ['batch', 'sequence', spec.hidden]);
      return;
    case 'classifier': {
      const logits = classifier(layers, spec, firstToken(layers, encoded));
      const labels = layers.w.shapeOf(classifierOutput(spec))![0]!;
      g.node('Identity', [logits], {}, { names: ['logits'] });
      g.output('logits', 'float32', ['batch', labels]);
      return;
    }
    case 'masked-lm': {
      const logits = maskedLm(layers, spec, encoded.states);
      const shape = g.node('Concat', [encoded.shape, layers.ints([spec.vocab])], { axis: 0 });
      g.node('Reshape', [logits, shape], {}, { names: ['logits'] });
      g.output('logits', 'float32', ['batch', 'sequence', spec.vocab]);
      return;
    }
    case 'colbert': {
      const dim = layers.w.shapeOf('linear.weight')?.[0];
      if (dim === undefined)
        throw layers.w.error(
          'tensor linear.weight is missing: a ColBERT checkpoint stores its projection as linear.weight [dim, hidden] beside the encoder',
        );
      const projected = layers.linear(
        encoded.states,
        'linear',
        { in: spec.hidden, out: dim },
        `ColBERT dim ${dim}`,
        'no-bias',
      );
      const shape = g.node('Concat', [encoded.shape, layers.ints([dim])], { axis: 0 });
      g.node('Reshape', [projected, shape], {}, { names: ['token_embeddings'] });
      g.output('token_embeddings', 'float32', ['batch', 'sequence', dim]);
      return;
    }
  }
}

/** The head each Hugging Face class name implies (undefined: the plain encoder). */
export function encoderHeadOf(
  architectures: readonly string[],
  has: (name: string) => boolean,
): EncoderHead {
  if (architectures.some((a) => a.endsWith('ForSequenceClassification'))) return 'classifier';
  if (architectures.some((a) => a.endsWith('ForMaskedLM'))) return 'masked-lm';
  if (architectures.some((a) => a.includes('ColBERT')) || has('linear.weight')) return 'colbert';
  return 'hidden';
}

/** `[batch, hidden]`: each row's first token (`[CLS]`, `<s>`), as Hugging Face's heads take it. */
function firstToken(layers: Layers, encoded: EncoderOutput): string {
  const states = layers.reshape(encoded.states, encoded.shape3);
  return layers.g.node('Gather', [states, layers.int(0)], { axis: 1 });
}

function classifierOutput(spec: EncoderSpec): string {
  switch (spec.modelType) {
    case 'roberta':
    case 'xlm-roberta':
    case 'electra':
      return 'classifier.out_proj.weight';
    case 'bert':
    case 'distilbert':
      return 'classifier.weight';
  }
}

function classifier(layers: Layers, spec: EncoderSpec, first: string): string {
  const { g, w } = layers;
  const H = spec.hidden;
  const why = 'a sequence-classification head (…ForSequenceClassification)';
  const labelsOf = (name: string): number => {
    const shape = w.shapeOf(name);
    if (!shape || shape.length !== 2)
      throw w.error(
        `tensor ${name} is missing or not a matrix: ${why} is needed; is this checkpoint a cross-encoder?`,
      );
    return shape[0]!;
  };
  const square = { in: H, out: H };
  switch (spec.modelType) {
    case 'bert': {
      const pooled = g.node('Tanh', [
        layers.linear(first, `${spec.prefix}pooler.dense`, square, why),
      ]);
      return layers.linear(
        pooled,
        'classifier',
        { in: H, out: labelsOf('classifier.weight') },
        why,
      );
    }
    case 'roberta':
    case 'xlm-roberta':
    case 'electra': {
      const dense = layers.linear(first, 'classifier.dense', square, why);
      const act =
        spec.modelType === 'electra' ? layers.activation(dense, 'gelu') : g.node('Tanh', [dense]);
      const labels = labelsOf('classifier.out_proj.weight');
      return layers.linear(act, 'classifier.out_proj', { in: H, out: labels }, why);
    }
    case 'distilbert': {
      const pre = g.node('Relu', [layers.linear(first, 'pre_classifier', square, why)]);
      return layers.linear(pre, 'classifier', { in: H, out: labelsOf('classifier.weight') }, why);
    }
  }
}

/** Each architecture's masked-LM head over `[tokens, hidden]`: `[tokens, vocab]`. */
function maskedLm(layers: Layers, spec: EncoderSpec, states: string): string {
  const { w } = layers;
  const names = mlmNames(spec);
  const why = 'a masked-LM head (…ForMaskedLM)';
  if (!w.has(`${names.dense}.weight`))
    throw w.error(
      `tensor ${names.dense}.weight is missing: ${why} is needed; is this checkpoint a masked LM (SPLADE)?`,
    );
  const width = names.width === 'embedding' ? spec.embedding : spec.hidden;
  const dense = layers.linear(states, names.dense, { in: spec.hidden, out: width }, why);
  const eps = spec.modelType === 'distilbert' ? 1e-12 : spec.eps;
  const normed = layers.layerNorm(
    layers.activation(dense, names.activation),
    names.norm,
    width,
    eps,
    why,
  );
  const tied = `${spec.prefix}embeddings.word_embeddings.weight`;
  const decoder = w.has(`${names.decoder}.weight`) ? `${names.decoder}.weight` : tied;
  const weight = w.get(decoder, [spec.vocab, width], `vocab_size ${spec.vocab}`);
  const bias = names.bias.find((name) => w.has(name));
  if (!bias) throw w.error(`tensor ${names.bias[0]} is missing (${why}: the output bias)`);
  const b = w.get(bias, [spec.vocab], `vocab_size ${spec.vocab}`);
  return layers.g.node('Gemm', [normed, weight, b], { transB: 1 });
}

function mlmNames(spec: EncoderSpec): {
  dense: string;
  norm: string;
  decoder: string;
  bias: string[];
  activation: EncoderSpec['activation'];
  width: 'hidden' | 'embedding';
} {
  switch (spec.modelType) {
    case 'bert':
      return {
        dense: 'cls.predictions.transform.dense',
        norm: 'cls.predictions.transform.LayerNorm',
        decoder: 'cls.predictions.decoder',
        bias: ['cls.predictions.bias', 'cls.predictions.decoder.bias'],
        activation: spec.activation,
        width: 'hidden',
      };
    case 'roberta':
    case 'xlm-roberta':
      return {
        dense: 'lm_head.dense',
        norm: 'lm_head.layer_norm',
        decoder: 'lm_head.decoder',
        bias: ['lm_head.bias', 'lm_head.decoder.bias'],
        activation: 'gelu',
        width: 'hidden',
      };
    case 'distilbert':
      return {
        dense: 'vocab_transform',
        norm: 'vocab_layer_norm',
        decoder: 'vocab_projector',
        bias: ['vocab_projector.bias'],
        activation: spec.activation,
        width: 'hidden',
      };
    case 'electra':
      return {
        dense: 'generator_predictions.dense',
        norm: 'generator_predictions.LayerNorm',
        decoder: 'generator_lm_head',
        bias: ['generator_lm_head.bias'],
        activation: 'gelu',
        width: 'embedding',
      };
  }
}
