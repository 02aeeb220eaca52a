/**
 * The tokenizer of a T5-family folder that ships SentencePiece's `spiece.model` and no
 * `tokenizer.json` (`castorini/monot5-base-msmarco`, `google/mt5-base`, ...): the model is turned
 * into the `tokenizer.json` that transformers' T5 converter writes for it, so the same tokenizer
 * code runs it:
 *
 * - the Unigram model with every piece and score (ids are the pieces' positions);
 * - SentencePiece's normalization: `nmt_nfkc` (NFKC, control characters dropped, Unicode spaces
 *   made plain spaces; the library applies these rules itself, the file's precompiled map is not
 *   read), `nfkc` or `identity`; then, as `remove_extra_whitespaces` asks, no leading or trailing
 *   spaces and runs of spaces made one;
 * - `▁` for spaces and before the text (`add_dummy_prefix`);
 * - `</s>` appended after each text, as T5Tokenizer does; the control and unknown pieces
 *   (`<pad>`, `</s>`, `<unk>`) and T5Tokenizer's `<extra_id_N>` sentinels as special tokens.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { modelError } from '../errors.js';
import {
  MODEL_TYPE_NAMES,
  parseSentencePieceModel,
  PIECE_TYPE,
  type SentencePieceModel,
} from './sentencepiece-model.js';

export const SPIECE_FILE = 'spiece.model';

/** The sentinels T5Tokenizer adds after the pieces when tokenizer_config.json names no count. */
const T5_EXTRA_IDS = 100;

/** Normalizers of the SentencePiece rules irserve reproduces, by rule name. */
const NORMALIZERS: Record<string, Record<string, unknown>[]> = {
  nmt_nfkc: [{ type: 'Precompiled', precompiled_charsmap: null }],
  nfkc: [{ type: 'NFKC' }],
  identity: [],
};

/**
 * The tokenizer.json of `folder`'s spiece.model, or undefined when it has none; an ERR_CONFIG
 * naming the file when it cannot be used.
 *
 * @example
 * const json = await readSpieceTokenizer('models/monot5-base-msmarco', tokenizerConfig);
 */
export async function readSpieceTokenizer(
  folder: string,
  tokenizerConfig: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const file = join(folder, SPIECE_FILE);
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw modelError(folder, `cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return t5TokenizerJson(parseSentencePieceModel(data), tokenizerConfig);
  } catch (error) {
    throw modelError(folder, `${file} ${(error as Error).message}`);
  }
}

/**
 * The tokenizer.json transformers writes for a T5 SentencePiece model.
 *
 * @example t5TokenizerJson(parseSentencePieceModel(bytes), {}).model // { type: 'Unigram', ... }
 */
export function t5TokenizerJson(
  model: SentencePieceModel,
  tokenizerConfig: Record<string, unknown>,
): Record<string, unknown> {
  if (model.modelType !== 1)
    throw new Error(
      `is a ${MODEL_TYPE_NAMES[model.modelType] ?? `type ${model.modelType}`} model; irserve reads Unigram SentencePiece models (T5, mT5) only: save the tokenizer as tokenizer.json with transformers' tokenizer.save_pretrained`,
    );
  const { name } = model.normalizer;
  const rule = NORMALIZERS[name];
  if (!rule)
    throw new Error(
      `normalizes with "${name}"; irserve reproduces ${Object.keys(NORMALIZERS).join(', ')}: save the tokenizer as tokenizer.json with transformers' tokenizer.save_pretrained`,
    );
  const ids = (type: number) => model.pieces.flatMap((p, id) => (p.type === type ? [id] : []));
  const unkId = ids(PIECE_TYPE.unknown)[0];
  const eosId = model.pieces.findIndex((p) => p.piece === '</s>');
  if (unkId === undefined || eosId < 0)
    throw new Error('has no <unk> or no </s> piece (T5 models have <pad>, </s> and <unk>)');
  const whitespace = model.normalizer.removeExtraWhitespaces
    ? [replace('^ +| +$', ''), replace(' {2,}', ' ')]
    : [];
  const space = {
    replacement: '\u2581',
    prepend_scheme: model.normalizer.addDummyPrefix ? 'always' : 'never',
    split: false,
  };
  return {
    version: '1.0',
    added_tokens: addedTokens(model, extraIds(model, tokenizerConfig)),
    normalizer: { type: 'Sequence', normalizers: [...rule, ...whitespace] },
    pre_tokenizer: { type: 'Metaspace', ...space },
    post_processor: eosTemplate(eosId),
    decoder: { type: 'Metaspace', ...space },
    model: {
      type: 'Unigram',
      unk_id: unkId,
      vocab: model.pieces.map((p) => [p.piece, p.score]),
      byte_fallback: ids(PIECE_TYPE.byte).length > 0,
    },
  };
}

function replace(pattern: string, content: string): Record<string, unknown> {
  return { type: 'Replace', pattern: { Regex: pattern }, content };
}

/** T5Tokenizer's `extra_ids` (tokenizer_config.json, default 100), unless the model has them. */
function extraIds(model: SentencePieceModel, tokenizerConfig: Record<string, unknown>): number {
  if (model.pieces.some((p) => p.piece.startsWith('<extra_id_'))) return 0;
  const named = tokenizerConfig.extra_ids;
  return typeof named === 'number' && Number.isInteger(named) && named >= 0 ? named : T5_EXTRA_IDS;
}

/** The special pieces, user-defined pieces and sentinels (`<extra_id_0>` is the last id). */
function addedTokens(model: SentencePieceModel, extra: number): Record<string, unknown>[] {
  const token = (id: number, content: string, special: boolean) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: !special,
    special,
  });
  const pieces = model.pieces.flatMap((p, id) =>
    p.type === PIECE_TYPE.control || p.type === PIECE_TYPE.unknown
      ? [token(id, p.piece, true)]
      : p.type === PIECE_TYPE.userDefined
        ? [token(id, p.piece, false)]
        : [],
  );
  const size = model.pieces.length;
  const sentinels = Array.from({ length: extra }, (_, i) =>
    token(size + extra - 1 - i, `<extra_id_${i}>`, true),
  );
  return [...pieces, ...sentinels.reverse()];
}

/** `</s>` after one text and after each text of a pair, as T5Tokenizer adds it. */
function eosTemplate(eosId: number): Record<string, unknown> {
  const seq = (id: string) => ({ Sequence: { id, type_id: 0 } });
  const eos = { SpecialToken: { id: '</s>', type_id: 0 } };
  return {
    type: 'TemplateProcessing',
    single: [seq('A'), eos],
    pair: [seq('A'), eos, seq('B'), eos],
    special_tokens: { '</s>': { id: '</s>', ids: [eosId], tokens: ['</s>'] } },
  };
}
