/**
 * monoT5's encoder input, `Query: {query} Document: {document} Relevant:` plus `</s>`, built from
 * token ids so that only the query and the passage are cut: the query to `q_max_length`
 * tokens, the passage to `d_max_length`, while the prompt's own words and `</s>` always stay.
 * (RoutIR cuts the whole string to q + d + 9 tokens, so a long passage loses "Relevant:", the
 * very word the model answers after.) Each piece is tokenized on its own with the whitespace
 * around it dropped, which for T5's whitespace-splitting SentencePiece pre-tokenizer gives the
 * ids of the whole string.
 */
import type { EncodedRow } from '../tokenizer/encoded-batch.js';
import type { TextTokenizer } from '../tokenizer/text-tokenizer.js';

type Piece = { ids: number[] } | { slot: 'query' | 'document' };

export interface PromptLimits {
  queryTokens: number;
  documentTokens: number;
}

export class MonoT5Prompt {
  readonly #tokenizer: TextTokenizer;
  readonly #pieces: Piece[];
  readonly #limits: PromptLimits;

  /**
   * @example new MonoT5Prompt(tokenizer, MONOT5_PROMPT, { queryTokens: 180, documentTokens: 512 })
   */
  constructor(tokenizer: TextTokenizer, prompt: string, limits: PromptLimits) {
    this.#tokenizer = tokenizer;
    this.#limits = limits;
    this.#pieces = prompt
      .split(/(\{query\}|\{document\}|\{passage\})/)
      .map((part): Piece =>
        part === '{query}'
          ? { slot: 'query' }
          : part === '{document}' || part === '{passage}'
            ? { slot: 'document' }
            : { ids: tokenizer.tokenize(part.trim()) },
      );
  }

  /**
   * The ids of one (query, passage) with the tokenizer's special tokens; `truncated` when the
   * query or the passage was cut.
   *
   * @example
   * prompt.encode('what is a cat', 'a cat is a small feline').ids
   */
  encode(query: string, passage: string): EncodedRow {
    const slots = {
      query: this.#cut(query, this.#limits.queryTokens),
      document: this.#cut(passage, this.#limits.documentTokens),
    };
    const ids = this.#pieces.flatMap((piece) =>
      'ids' in piece ? piece.ids : slots[piece.slot].ids,
    );
    const full = this.#tokenizer.withSpecialTokens(ids);
    return {
      ids: full,
      typeIds: new Array<number>(full.length).fill(0),
      truncated: slots.query.cut || slots.document.cut,
    };
  }

  #cut(text: string, limit: number): { ids: number[]; cut: boolean } {
    const ids = this.#tokenizer.tokenize(text.trim(), limit + 1);
    return { ids: ids.slice(0, limit), cut: ids.length > limit };
  }
}
