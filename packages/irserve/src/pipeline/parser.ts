import {
  callNode,
  groupNode,
  seqNode,
  type CallNode,
  type GroupNode,
  type SeqNode,
  type StageNode,
} from './ast.js';
import { tokenize, type Token, type TokenType } from './lexer.js';
import { syntaxError } from './syntax-error.js';

/** Deepest nesting of `{...}` groups; bounds recursion so hostile input cannot blow the stack. */
export const MAX_GROUP_DEPTH = 32;
/** Largest `%N`; larger values are typos or attacks, and `max_limit` caps searches anyway. */
export const MAX_PERCENT = 1_000_000_000;
/** Longest name (service, alias or view). */
export const MAX_NAME_LENGTH = 200;

const NAME = 'a service name';
const OPEN = "'{'";
const ORDER_HINT = "a call's modifiers go in the order NAME[alias]@view%N, each at most once";

/** Where a sequence sits decides which tokens may follow a stage. */
type Context = 'top' | 'group';

/** One parse of one string; holds the cursor (local state, never shared). */
class Parser {
  readonly #source: string;
  readonly #tokens: Token[];
  #at = 0;
  #depth = 0;
  /** Optional tokens that could have continued the construct just parsed (for messages). */
  #couldContinue: string[] = [];

  constructor(source: string) {
    this.#source = source;
    this.#tokens = tokenize(source);
  }

  parse(): SeqNode {
    const root = this.#seq('top');
    this.#expect('end', ["'>>'", 'end of input']);
    return root;
  }

  #peek(): Token {
    return this.#tokens[this.#at] as Token;
  }

  #next(): Token {
    const token = this.#peek();
    if (token.type !== 'end') this.#at += 1;
    this.#couldContinue = [];
    return token;
  }

  #fail(expected: readonly string[], hint?: string): never {
    const token = this.#peek();
    const all = [...new Set([...this.#couldContinue, ...expected])];
    throw syntaxError(this.#source, token, all, hint ?? this.#hintFor(token, all));
  }

  /** A hint for the usual slips: modifiers out of order, `>` for `>>`, dots in names. */
  #hintFor(token: Token, expected: readonly string[]): string | undefined {
    const previous = this.#tokens[this.#at - 1];
    const afterCall = previous !== undefined && ['name', 'int', ']'].includes(previous.type);
    const modifier = token.type === '[' || token.type === '@' || token.type === '%';
    if (modifier && afterCall && !expected.includes(`'${token.text}'`)) return ORDER_HINT;
    if (token.type === 'invalid' && token.text === '>') return "stages are joined by '>>'";
    if (token.type === 'invalid' && afterCall)
      return "names are a letter followed by letters, digits, '_' or '-'";
    return undefined;
  }

  #expect(type: TokenType, expected: readonly string[], hint?: string): Token {
    if (this.#peek().type !== type) this.#fail(expected, hint);
    return this.#next();
  }

  #seq(context: Context): SeqNode {
    const stages: StageNode[] = [this.#stage()];
    while (this.#peek().type === '>>') {
      this.#next();
      stages.push(this.#stage());
    }
    const follow = context === 'top' ? ["'>>'", 'end of input'] : ["'>>'", "','", "'}'"];
    if (!isFollower(this.#peek().type, context)) this.#fail(follow);
    return seqNode(stages);
  }

  #stage(): StageNode {
    const token = this.#peek();
    if (token.type === '{') return this.#group(undefined);
    if (token.type !== 'name') {
      const hint = token.type === 'int' ? 'names start with a letter' : undefined;
      this.#fail([NAME, OPEN], hint);
    }
    const call = this.#call(NAME);
    if (this.#peek().type === '{') return this.#group(call);
    this.#couldContinue.push(OPEN);
    return call;
  }

  #group(expander: CallNode | undefined): GroupNode {
    const open = this.#expect('{', [OPEN]);
    if (++this.#depth > MAX_GROUP_DEPTH)
      throw syntaxError(this.#source, open, [NAME], `groups nest at most ${MAX_GROUP_DEPTH} deep`);
    const branches = [this.#seq('group')];
    while (this.#peek().type === ',') {
      this.#next();
      branches.push(this.#seq('group'));
    }
    this.#expect('}', ["','", "'}'"]);
    this.#depth -= 1;
    const merger = this.#call(
      "a fusion service name after '}'",
      'a group needs a merger, as in {a, b}RRF',
    );
    return groupNode(branches, merger, expander);
  }

  #call(what: string, hint?: string): CallNode {
    const name = this.#name(what, hint);
    let alias: string | undefined;
    let view: string | undefined;
    let limit: number | undefined;
    if (this.#peek().type === '[') {
      this.#next();
      alias = this.#name('an alias name');
      this.#expect(']', ["']'"]);
    }
    if (this.#peek().type === '@') {
      this.#next();
      view = this.#name('a view name');
    }
    if (this.#peek().type === '%') {
      this.#next();
      limit = this.#integer();
    }
    this.#couldContinue = remainingModifiers(alias, view, limit);
    return callNode(name, { alias, view, limit });
  }

  #name(what: string, hint?: string): string {
    const token = this.#expect('name', [what], hint);
    if (token.text.length > MAX_NAME_LENGTH) {
      this.#at -= 1;
      this.#fail([what], `names are at most ${MAX_NAME_LENGTH} characters`);
    }
    return token.text;
  }

  #integer(): number {
    const token = this.#peek();
    const value = token.type === 'int' ? Number(token.text) : Number.NaN;
    if (!(value >= 1 && value <= MAX_PERCENT)) {
      const hint =
        token.type === 'int' ? `N is an integer from 1 to ${MAX_PERCENT}` : 'as in bm25%100';
      this.#fail(['a positive integer after %'], hint);
    }
    this.#next();
    return value;
  }
}

function remainingModifiers(
  alias: string | undefined,
  view: string | undefined,
  limit: number | undefined,
): string[] {
  if (limit !== undefined) return [];
  if (view !== undefined) return ["'%'"];
  return alias !== undefined ? ["'@'", "'%'"] : ["'['", "'@'", "'%'"];
}

function isFollower(type: TokenType, context: Context): boolean {
  return context === 'top' ? type === 'end' : type === ',' || type === '}';
}

/**
 * Parses a pipeline expression into its AST. Throws ERR_PIPELINE_SYNTAX naming the column and
 * what was expected there; never throws anything else, whatever the input.
 *
 * @example parsePipeline('{bm25, bm25-title}RRF%50 >> rerank')
 */
export function parsePipeline(source: string): SeqNode {
  return new Parser(source).parse();
}
