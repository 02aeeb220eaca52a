import { IrserveError } from '../errors.js';
import { describeToken, type Token } from './lexer.js';

/** Joins alternatives as `a, b or c`. */
export function oneOf(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/**
 * ERR_PIPELINE_SYNTAX at a token: `pipeline syntax error at column 9: expected ',' or '}',
 * found end of input`. The details carry the column, the expected alternatives and a caret line
 * under the pipeline, for clients that show it.
 */
export function syntaxError(
  source: string,
  token: Token,
  expected: readonly string[],
  hint?: string,
): IrserveError {
  const found = describeToken(token);
  const message =
    `pipeline syntax error at column ${token.column}: expected ${oneOf(expected)}, found ${found}` +
    (hint ? ` (${hint})` : '');
  return new IrserveError('ERR_PIPELINE_SYNTAX', message, {
    details: {
      column: token.column,
      expected: [...expected],
      found,
      pointer: `${source}\n${' '.repeat(Math.max(0, token.column - 1))}^`,
    },
  });
}
