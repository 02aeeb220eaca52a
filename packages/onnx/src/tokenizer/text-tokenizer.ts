/**
 * The tokenizer of a model folder: `tokenizer.json` run by `@huggingface/tokenizers` (WordPiece,
 * BPE, Unigram / SentencePiece, in TypeScript), plus what that library leaves to its caller:
 * truncation to `maxLength` with the special tokens kept, pairs for cross-encoders, prompt
 * templates whose one slot is cut, and padding to the longest row of a batch.
 */
import { engineError } from '../errors.js';
import type { ModelFolder } from '../folder/model-folder.js';
import { fastWordPieceFor, type FastWordPiece } from './fast-wordpiece.js';
import { createHfTokenizer, type HfTokenizer } from './hf-tokenizer.js';
import {
  applySingleTemplate,
  singleTemplate,
  type ProcessedRow,
  type SingleTemplate,
} from './special-template.js';
import { padRows, type EncodedBatch, type EncodedRow } from './encoded-batch.js';
import { truncatePair, type TruncationStrategy } from './truncate.js';

/**
 * One row to encode: a text, a `(text, pair)` for a cross-encoder, or a template
 * (`prefix` + `text` + `suffix`, only `text` cut, no special tokens added: the template spells
 * them out, as LLM rerankers' chat prompts do).
 */
export type TokenizerInput =
  string | { text: string; pair?: string } | { prefix: string; text: string; suffix: string };

export interface EncodeOptions {
  /** Most tokens per row, special tokens included; longer rows are cut, never rejected. */
  maxLength: number;
  /** How a pair is cut (default `longest_first`, as Hugging Face does). */
  truncation?: TruncationStrategy;
}

export interface TextTokenizerOptions {
  /** Overrides tokenizer_config.json's `padding_side` (default `right`). */
  paddingSide?: 'left' | 'right';
}

/** Characters read per allowed token before the rest of a long text is even tokenized. */
const CHARS_PER_TOKEN_BOUND = 32;

export class TextTokenizer {
  readonly #tokenizer: HfTokenizer;
  /** BERT WordPiece tokenizers on ASCII text, without the library (same ids, much faster). */
  readonly #fast: FastWordPiece | undefined;
  readonly #addedIds: Map<string, number>;
  /** What the post-processor puts around one text; `null`: no fixed template, ask it each time. */
  #single: SingleTemplate | null | undefined;
  readonly #unkId: number;
  /** The id padding positions hold. */
  readonly padId: number;
  readonly paddingSide: 'left' | 'right';

  constructor(
    json: Record<string, unknown>,
    config: Record<string, unknown> = {},
    options: TextTokenizerOptions = {},
  ) {
    this.#tokenizer = createHfTokenizer(json, config);
    this.#addedIds = new Map(
      [...this.#tokenizer.get_added_tokens_decoder()].map(([id, token]) => [token.content, id]),
    );
    this.#fast = fastWordPieceFor(json, config, this.#addedIds);
    this.#unkId = this.#tokenizer.model?.unk_token_id ?? 0;
    this.padId = this.#findPadId(json, config);
    this.paddingSide = options.paddingSide ?? (config.padding_side === 'left' ? 'left' : 'right');
  }

  /**
   * The tokenizer of a loaded model folder.
   *
   * @example
   * const tokenizer = TextTokenizer.fromFolder(await loadModelFolder('models/minilm'));
   */
  static fromFolder(folder: ModelFolder, options: TextTokenizerOptions = {}): TextTokenizer {
    const paddingSide = options.paddingSide ?? folder.onnxConfig.padding_side;
    return new TextTokenizer(folder.tokenizerJson, folder.tokenizerConfig, {
      ...(paddingSide ? { paddingSide } : {}),
    });
  }

  /** The id of `token` (an added/special token or a vocabulary entry), or undefined. */
  tokenId(token: string): number | undefined {
    return this.#addedIds.get(token) ?? this.#tokenizer.token_to_id(token);
  }

  /**
   * How many token ids the tokenizer can produce: its model's vocabulary and the added tokens
   * (an LLM's next-token logits have at least this many columns).
   *
   * @example tokenizer.vocabularySize() // 151669 for Qwen3
   */
  vocabularySize(): number {
    let size = this.#tokenizer.model?.vocab?.length ?? 0;
    for (const id of this.#addedIds.values()) size = Math.max(size, id + 1);
    return size;
  }

  /** The token string of `id`, or undefined. */
  idToken(id: number): string | undefined {
    return this.#tokenizer.id_to_token(id);
  }

  /**
   * The ids of `text` without special tokens; with `limit`, at least the first `limit` ids are
   * exact while a very long text is not tokenized to its end.
   *
   * @example
   * tokenizer.tokenize('hello world') // [13, 14]
   */
  tokenize(text: string, limit?: number): number[] {
    if (limit !== undefined && text.length > limit * CHARS_PER_TOKEN_BOUND) {
      const cut = cutAtSpace(text, limit * CHARS_PER_TOKEN_BOUND);
      const ids = this.#ids(cut);
      if (ids.length >= limit) return ids;
    }
    return this.#ids(text);
  }

  /**
   * One row: special tokens added by the tokenizer's post-processor, cut to `maxLength`.
   *
   * @example
   * tokenizer.encode({ text: 'what is a cat', pair: 'a cat is ...' }, { maxLength: 128 }).ids
   */
  encode(input: TokenizerInput, options: EncodeOptions): EncodedRow {
    if (typeof input !== 'string' && 'prefix' in input) return this.#encodeTemplate(input, options);
    const text = typeof input === 'string' ? input : input.text;
    const pair = typeof input === 'string' ? undefined : input.pair;
    const overhead = this.#specials([], pair === undefined ? undefined : []).tokens.length;
    const budget = Math.max(0, options.maxLength - overhead);
    const first = this.tokenize(text, budget + 1);
    const second = pair === undefined ? undefined : this.tokenize(pair, budget + 1);
    const [a, b] = truncatePair(first, second, budget, options.truncation);
    const truncated = a.length < first.length || (b?.length ?? 0) < (second?.length ?? 0);
    const { tokens, typeIds } = this.#specials(a, b);
    return { ids: tokens, typeIds, truncated };
  }

  /**
   * `ids` (already cut) with the special tokens the post-processor adds around one text: T5's
   * trailing `</s>`, BERT's `[CLS]` ... `[SEP]`.
   *
   * @example
   * tokenizer.withSpecialTokens([13, 14]) // [13, 14, 1] for T5
   */
  withSpecialTokens(ids: readonly number[]): number[] {
    return this.#specials([...ids], undefined).tokens;
  }

  /**
   * Encodes every row and pads them to the longest (on `paddingSide`). A text the tokenizer
   * fails on is an ERR_ENGINE naming its row.
   *
   * @example
   * const batch = tokenizer.encodeBatch(['a cat', 'the quick brown fox'], { maxLength: 256 });
   * batch.length // tokens of the longest row
   */
  encodeBatch(inputs: readonly TokenizerInput[], options: EncodeOptions): EncodedBatch {
    const rows = inputs.map((input, row) => {
      try {
        return this.encode(input, options);
      } catch (error) {
        throw engineError(
          `the tokenizer failed on text ${row}: ${(error as Error).message}`,
          error,
        );
      }
    });
    return padRows(rows, this.padId, this.paddingSide);
  }

  #encodeTemplate(
    input: { prefix: string; text: string; suffix: string },
    options: EncodeOptions,
  ): EncodedRow {
    const prefix = this.#ids(input.prefix);
    const suffix = this.#ids(input.suffix);
    const room = Math.max(0, options.maxLength - prefix.length - suffix.length);
    const body = this.tokenize(input.text, room + 1);
    const ids = [...prefix, ...body.slice(0, room), ...suffix];
    return { ids, typeIds: new Array<number>(ids.length).fill(0), truncated: body.length > room };
  }

  /** Token strings to ids, as the library's own `encode` maps them. */
  #ids(text: string): number[] {
    if (text === '') return [];
    const fast = this.#fast?.ids(text);
    if (fast !== undefined) return fast;
    return this.#tokenizer
      .tokenize(text, { add_special_tokens: false })
      .map((token: string) => this.tokenId(token) ?? this.#unkId);
  }

  /** Adds the post-processor's special tokens around already-cut ids; returns ids and types. */
  #specials(a: number[], b: number[] | undefined): ProcessedRow {
    if (b === undefined) {
      this.#single ??= singleTemplate((ids) => this.#processed(ids, undefined));
      if (this.#single) return applySingleTemplate(this.#single, a);
    }
    return this.#processed(a, b);
  }

  /** Ids through the post-processor (as marked strings). */
  #processed(a: number[], b: number[] | undefined): ProcessedRow {
    const processor = this.#tokenizer.post_processor;
    const first = a.map(markId);
    const second = b?.map(markId);
    if (!processor) {
      const tokens = [...a, ...(b ?? [])];
      return { tokens, typeIds: [...a.map(() => 0), ...(b ?? []).map(() => 1)] };
    }
    // Ids travel through the processor as marked strings; the specials it adds come back as
    // token names (no token name starts with the mark).
    const out = processor.post_process(first, second ?? null, true);
    const tokens = [...out.tokens, ...(out.tokens_pair ?? [])];
    const typeIds = out.token_type_ids ?? [
      ...out.tokens.map(() => 0),
      ...(out.tokens_pair ?? []).map(() => 1),
    ];
    const ids = tokens.map((token) =>
      token.startsWith(ID_MARK) ? Number(token.slice(1)) : (this.tokenId(token) ?? this.#unkId),
    );
    return { tokens: ids, typeIds: ids.map((_, i) => typeIds[i] ?? 0) };
  }

  #findPadId(json: Record<string, unknown>, config: Record<string, unknown>): number {
    const named = config.pad_token;
    const content =
      typeof named === 'string'
        ? named
        : (named as { content?: unknown } | null | undefined)?.content;
    const padding = json.padding as { pad_id?: unknown } | null | undefined;
    const namedId = typeof content === 'string' ? this.tokenId(content) : undefined;
    if (namedId !== undefined) return namedId;
    if (typeof padding?.pad_id === 'number') return padding.pad_id;
    for (const candidate of ['[PAD]', '<pad>', '<|endoftext|>', '</s>']) {
      const id = this.tokenId(candidate);
      if (id !== undefined) return id;
    }
    return 0;
  }
}

const ID_MARK = '\u0000';

function markId(id: number): string {
  return `${ID_MARK}${id}`;
}

/** The text up to the last whitespace before `limit` characters (or exactly `limit`). */
function cutAtSpace(text: string, limit: number): string {
  const space = text.lastIndexOf(' ', limit);
  return text.slice(0, space > limit / 2 ? space : limit);
}
