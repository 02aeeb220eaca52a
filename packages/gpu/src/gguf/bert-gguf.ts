/**
 * Small BERT encoders in llama.cpp's GGUF layout with a WordPiece vocabulary and seeded random
 * weights: the test fixtures (an embedding model, a ranking model, a token model) and the bench's
 * larger model. Real llama.cpp loads and runs them; their outputs mean nothing.
 */
import { writeGguf, type GgufTensor, type GgufValue } from './gguf-writer.js';

export interface BertShape {
  embed: number;
  ffn: number;
  layers: number;
  heads: number;
  context: number;
}

/** The fixtures' size: about 160 KB a file. */
export const TINY_BERT: BertShape = { embed: 32, ffn: 64, layers: 2, heads: 2, context: 512 };

const WORDS = `a an and at of on in the to from for with by is are what how why which
jet engines engine turbine compressor thrust boundary layer layers laminar transition flat plate
shock shocks wave waves supersonic reflection wedge wing wings flutter swept transonic speed heat
transfer hypersonic flow propeller propellers noise low high air drag lift pressure`.split(/\s+/);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

/** llama.cpp's WordPiece vocabulary: word starts carry U+2581, continuations are bare. */
function vocabulary(): { tokens: string[]; types: number[] } {
  const words = [...new Set([...WORDS, ...LETTERS])].map((w) => `\u2581${w}`);
  const tokens = [...SPECIALS, ...words, ...LETTERS, '\u2581.', '\u2581,', '\u2581?'];
  return { tokens, types: tokens.map((_, i) => (i < SPECIALS.length ? 3 : 1)) };
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    state ^= state + Math.imul(state ^ (state >>> 7), 61);
    return ((state ^ (state >>> 14)) >>> 0) / 4294967296;
  };
}

function bertTensors(shape: BertShape, vocab: number, rank: boolean, seed: number): GgufTensor[] {
  const { embed: EMBED, ffn: FFN, layers: LAYERS, context: CONTEXT } = shape;
  const next = random(seed);
  const fill = (n: number, scale: number) =>
    Float32Array.from({ length: n }, () => (next() * 2 - 1) * scale);
  const ones = (n: number) => new Float32Array(n).fill(1);
  const t = (name: string, dims: number[], values: Float32Array): GgufTensor => ({
    name,
    dims,
    values,
  });
  const tensors = [
    t('token_embd.weight', [EMBED, vocab], fill(EMBED * vocab, 1)),
    t('token_types.weight', [EMBED, 2], fill(EMBED * 2, 0.1)),
    t('position_embd.weight', [EMBED, CONTEXT], fill(EMBED * CONTEXT, 0.1)),
    t('token_embd_norm.weight', [EMBED], ones(EMBED)),
    t('token_embd_norm.bias', [EMBED], new Float32Array(EMBED)),
  ];
  const w = 1 / Math.sqrt(EMBED);
  for (let l = 0; l < LAYERS; l++) {
    const p = `blk.${l}.`;
    for (const name of ['attn_q', 'attn_k', 'attn_v', 'attn_output'])
      tensors.push(
        t(`${p}${name}.weight`, [EMBED, EMBED], fill(EMBED * EMBED, w)),
        t(`${p}${name}.bias`, [EMBED], fill(EMBED, 0.02)),
      );
    tensors.push(
      t(`${p}attn_output_norm.weight`, [EMBED], ones(EMBED)),
      t(`${p}attn_output_norm.bias`, [EMBED], new Float32Array(EMBED)),
      t(`${p}ffn_up.weight`, [EMBED, FFN], fill(EMBED * FFN, w)),
      t(`${p}ffn_up.bias`, [FFN], fill(FFN, 0.02)),
      t(`${p}ffn_down.weight`, [FFN, EMBED], fill(FFN * EMBED, 1 / Math.sqrt(FFN))),
      t(`${p}ffn_down.bias`, [EMBED], fill(EMBED, 0.02)),
      t(`${p}layer_output_norm.weight`, [EMBED], ones(EMBED)),
      t(`${p}layer_output_norm.bias`, [EMBED], new Float32Array(EMBED)),
    );
  }
  if (rank)
    tensors.push(
      t('cls.weight', [EMBED, EMBED], fill(EMBED * EMBED, w)),
      t('cls.bias', [EMBED], fill(EMBED, 0.02)),
      t('cls.output.weight', [EMBED, 1], fill(EMBED, 1)),
      t('cls.output.bias', [1], fill(1, 0.1)),
    );
  return tensors;
}

/**
 * A GGUF file; `pooling` is llama.cpp's pooling type (none 0, mean 1, cls 2, last 3, rank 4;
 * rank adds the `cls` / `cls.output` head), undefined for none at all.
 *
 * @example
 * writeFileSync('tiny-embed.gguf', bertGguf('tiny-embed', 1, 7));
 */
export function bertGguf(
  name: string,
  pooling: number | undefined,
  seed: number,
  shape: BertShape = TINY_BERT,
): Uint8Array {
  const { tokens, types } = vocabulary();
  const { embed: EMBED, ffn: FFN, layers: LAYERS, heads: HEADS, context: CONTEXT } = shape;
  const metadata: Record<string, GgufValue> = {
    'general.architecture': 'bert',
    'general.name': name,
    'general.alignment': { u32: 32 },
    'bert.context_length': { u32: CONTEXT },
    'bert.embedding_length': { u32: EMBED },
    'bert.feed_forward_length': { u32: FFN },
    'bert.block_count': { u32: LAYERS },
    'bert.attention.head_count': { u32: HEADS },
    'bert.attention.layer_norm_epsilon': { f32: 1e-12 },
    'bert.attention.causal': false,
    ...(pooling === undefined ? {} : { 'bert.pooling_type': { u32: pooling } }),
    'tokenizer.ggml.model': 'bert',
    'tokenizer.ggml.pre': 'default',
    'tokenizer.ggml.tokens': { strings: tokens },
    'tokenizer.ggml.token_type': { i32s: types },
    'tokenizer.ggml.token_type_count': { u32: 2 },
    'tokenizer.ggml.padding_token_id': { u32: 0 },
    'tokenizer.ggml.unknown_token_id': { u32: 1 },
    'tokenizer.ggml.bos_token_id': { u32: 2 },
    'tokenizer.ggml.cls_token_id': { u32: 2 },
    'tokenizer.ggml.seperator_token_id': { u32: 3 },
    'tokenizer.ggml.mask_token_id': { u32: 4 },
    'tokenizer.ggml.add_bos_token': true,
    'tokenizer.ggml.add_eos_token': false,
    'tokenizer.ggml.add_sep_token': true,
  };
  return writeGguf(metadata, bertTensors(shape, tokens.length, pooling === 4, seed));
}
