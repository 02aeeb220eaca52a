/**
 * A model's vocabulary (token id to token) from its `tokenizer.json` (WordPiece and BPE: an
 * object of token to id; Unigram: a list of `[token, score]`) or a `vocab.txt` (one token per
 * line, the line number is the id). The LSR engine maps TEI's token ids with it and checks that
 * the index's tokens belong to the model.
 */
import { readFile } from 'node:fs/promises';
import { IrserveError } from 'irserve/plugin';

function configError(path: string, why: string): IrserveError {
  return new IrserveError('ERR_CONFIG', `vocabulary ${path}: ${why}`);
}

function fromTokenizerJson(value: unknown, path: string): string[] {
  const model = (value as { model?: { vocab?: unknown } } | null)?.model;
  const vocab = model?.vocab;
  if (Array.isArray(vocab))
    return vocab.map((entry, i) => {
      const token: unknown = Array.isArray(entry) ? entry[0] : undefined;
      if (typeof token !== 'string')
        throw configError(path, `model.vocab[${i}] is not [token, score]`);
      return token;
    });
  if (vocab === null || typeof vocab !== 'object')
    throw configError(path, 'has no model.vocab (is it a tokenizer.json?)');
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(vocab)) {
    if (!Number.isInteger(id) || (id as number) < 0 || (id as number) > 10_000_000)
      throw configError(path, `the id of "${token}" is not a valid token id`);
    tokens[id as number] = token;
  }
  const added = (value as { added_tokens?: { id?: unknown; content?: unknown }[] }).added_tokens;
  for (const token of Array.isArray(added) ? added : [])
    if (Number.isInteger(token.id) && typeof token.content === 'string')
      tokens[token.id as number] ??= token.content;
  return Array.from(tokens, (token) => token ?? '');
}

/**
 * Reads the vocabulary at `path`; throws ERR_CONFIG naming the file.
 *
 * @example (await readVocabulary('models/splade/tokenizer.json'))[2003] // 'is'
 */
export async function readVocabulary(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw configError(
      path,
      `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  if (path.endsWith('.json') || text.trimStart().startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw configError(path, 'is not valid JSON');
    }
    return fromTokenizerJson(value, path);
  }
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw configError(path, 'is empty');
  return lines;
}

/**
 * Tokens of the index that the model's vocabulary lacks. An index encoded by another model
 * (another tokenizer) has many; the engine refuses to start rather than answer with empty results.
 *
 * @example missingTokens(['cat', 'zzz'], ['[PAD]', 'cat']) // ['zzz']
 */
export function missingTokens(
  indexTerms: readonly string[],
  vocabulary: readonly string[],
): string[] {
  const known = new Set(vocabulary);
  return indexTerms.filter((term) => !known.has(term));
}
