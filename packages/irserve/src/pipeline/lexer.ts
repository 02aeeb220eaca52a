/**
 * Tokens of the pipeline DSL. The lexer never throws: a character that starts no token becomes
 * an `invalid` token, so the parser can say what it expected at that column.
 */
export type TokenType =
  'name' | 'int' | '>>' | '{' | '}' | ',' | '[' | ']' | '@' | '%' | 'invalid' | 'end';

export interface Token {
  readonly type: TokenType;
  readonly text: string;
  /** 1-based column of the token's first character. */
  readonly column: number;
}

const SINGLE: Readonly<Record<string, TokenType>> = {
  '{': '{',
  '}': '}',
  ',': ',',
  '[': '[',
  ']': ']',
  '@': '@',
  '%': '%',
};

function match(pattern: RegExp, source: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(source)?.[0];
}

/** Splits a pipeline string into tokens, ending with one `end` token. */
export function tokenize(source: string): Token[] {
  // Sticky patterns carry `lastIndex`, so each call makes its own (no shared mutable state).
  // RoutIR's NAME: a letter, then letters, digits, `_` or `-` (so `bm25-title`, `const_far`).
  const NAME = /[A-Za-z][A-Za-z0-9_-]*/y;
  const INT = /[0-9]+/y;
  const SPACE = /\s+/y;
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const space = match(SPACE, source, at);
    if (space) {
      at += space.length;
      continue;
    }
    const char = source[at] as string;
    const text =
      match(NAME, source, at) ??
      match(INT, source, at) ??
      (source.startsWith('>>', at) ? '>>' : char);
    const type: TokenType = /^[A-Za-z]/.test(text)
      ? 'name'
      : /^[0-9]/.test(text)
        ? 'int'
        : text === '>>'
          ? '>>'
          : (SINGLE[text] ?? 'invalid');
    tokens.push({ type, text, column: at + 1 });
    at += text.length;
  }
  tokens.push({ type: 'end', text: '', column: source.length + 1 });
  return tokens;
}

/** How a token reads in an error message. */
export function describeToken(token: Token): string {
  switch (token.type) {
    case 'end':
      return 'end of input';
    case 'name':
      return `name '${token.text}'`;
    case 'int':
      return `number ${token.text}`;
    case 'invalid':
      return `character ${JSON.stringify(token.text)}`;
    case '>>':
    case '{':
    case '}':
    case ',':
    case '[':
    case ']':
    case '@':
    case '%':
      return `'${token.text}'`;
  }
}
