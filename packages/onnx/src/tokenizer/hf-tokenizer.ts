/**
 * The part of `@huggingface/tokenizers` irserve uses, typed here: the package's own `.d.ts`
 * files import each other without extensions, which NodeNext resolution cannot follow, so its
 * `Tokenizer` reads as `any`.
 */
import { Tokenizer } from '@huggingface/tokenizers';

export interface HfPostProcessor {
  post_process(
    tokens: string[],
    pair: string[] | null,
    addSpecialTokens: boolean,
  ): { tokens: string[]; tokens_pair?: string[]; token_type_ids?: number[] };
}

export interface HfTokenizer {
  tokenize(text: string, options: { add_special_tokens: boolean }): string[];
  token_to_id(token: string): number | undefined;
  id_to_token(id: number): string | undefined;
  get_added_tokens_decoder(): Map<number, { content: string }>;
  readonly post_processor: HfPostProcessor | null;
  readonly model: { unk_token_id?: number; vocab?: readonly string[] } | null;
}

/**
 * Builds the library's tokenizer from parsed `tokenizer.json` and `tokenizer_config.json`.
 *
 * @example
 * const tokenizer = createHfTokenizer(json, {});
 */
export function createHfTokenizer(
  json: Record<string, unknown>,
  config: Record<string, unknown>,
): HfTokenizer {
  return new Tokenizer(json, config) as HfTokenizer;
}
