import { describe, expect, it } from 'vitest';
import { callNode, equalNodes, groupNode, seqNode } from '../../src/pipeline/ast.js';
import { parsePipeline } from '../../src/pipeline/parser.js';
import { printPipeline } from '../../src/pipeline/print.js';

const c = callNode;
const seq = (...stages: Parameters<typeof seqNode>[0]) => seqNode(stages);

describe('every grammar form', () => {
  const forms: [string, ReturnType<typeof seqNode>, string][] = [
    ['bm25', seq(c('bm25')), 'bm25'],
    ['bm25-title', seq(c('bm25-title')), 'bm25-title'],
    ['const_far%10', seq(c('const_far', { limit: 10 })), 'const_far%10'],
    ['a[x]', seq(c('a', { alias: 'x' })), 'a[x]'],
    ['a@title', seq(c('a', { view: 'title' })), 'a@title'],
    ['a[x]@v%5', seq(c('a', { alias: 'x', view: 'v', limit: 5 })), 'a[x]@v%5'],
    ['a[x]%5', seq(c('a', { alias: 'x', limit: 5 })), 'a[x]%5'],
    ['a@v%5', seq(c('a', { view: 'v', limit: 5 })), 'a@v%5'],
    ['a>>b>>c', seq(c('a'), c('b'), c('c')), 'a >> b >> c'],
    ['{a}M', seq(groupNode([seq(c('a'))], c('M'))), '{a}M'],
    [
      '{a,b}RRF%100',
      seq(groupNode([seq(c('a')), seq(c('b'))], c('RRF', { limit: 100 }))),
      '{a, b}RRF%100',
    ],
    [
      '{a, b, c, d}M',
      seq(
        groupNode(
          ['a', 'b', 'c', 'd'].map((n) => seq(c(n))),
          c('M'),
        ),
      ),
      '{a, b, c, d}M',
    ],
    ['{a >> r, b}M', seq(groupNode([seq(c('a'), c('r')), seq(c('b'))], c('M'))), '{a >> r, b}M'],
    ['E{a}M', seq(groupNode([seq(c('a'))], c('M'), c('E'))), 'E{a}M'],
    [
      'E[e]%3{a, b}M[m]%10',
      seq(
        groupNode(
          [seq(c('a')), seq(c('b'))],
          c('M', { alias: 'm', limit: 10 }),
          c('E', { alias: 'e', limit: 3 }),
        ),
      ),
      'E[e]%3{a, b}M[m]%10',
    ],
    [
      '{{a, b}M, c}N',
      seq(groupNode([seq(groupNode([seq(c('a')), seq(c('b'))], c('M'))), seq(c('c'))], c('N'))),
      '{{a, b}M, c}N',
    ],
    [
      'x >> {a, b}M >> r%5',
      seq(c('x'), groupNode([seq(c('a')), seq(c('b'))], c('M')), c('r', { limit: 5 })),
      'x >> {a, b}M >> r%5',
    ],
    [
      '  {\tbm25 ,\n dense }  RRF %  50 >>  rr ',
      seq(groupNode([seq(c('bm25')), seq(c('dense'))], c('RRF', { limit: 50 })), c('rr')),
      '{bm25, dense}RRF%50 >> rr',
    ],
  ];

  it.each(forms)('%j', (source, expected, canonical) => {
    const ast = parsePipeline(source);
    expect(equalNodes(ast, expected)).toBe(true);
    expect(printPipeline(ast)).toBe(canonical);
    // Round trip: the canonical string parses to an equal AST and prints the same.
    const again = parsePipeline(printPipeline(ast));
    expect(equalNodes(again, ast)).toBe(true);
    expect(printPipeline(again)).toBe(canonical);
  });

  it('the AST is frozen plain data', () => {
    const ast = parsePipeline('{a, b}M >> c');
    expect(Object.isFrozen(ast)).toBe(true);
    expect(Object.isFrozen(ast.stages)).toBe(true);
    expect(Object.isFrozen(ast.stages[0])).toBe(true);
    expect(JSON.parse(JSON.stringify(ast))).toEqual(ast);
  });

  it('compares structurally', () => {
    expect(equalNodes(parsePipeline('a%1'), parsePipeline('a%2'))).toBe(false);
    expect(equalNodes(parsePipeline('a[x]'), parsePipeline('a'))).toBe(false);
    expect(equalNodes(parsePipeline('{a}M'), parsePipeline('E{a}M'))).toBe(false);
    expect(equalNodes(parsePipeline('{a, b}M'), parsePipeline('{b, a}M'))).toBe(false);
    expect(equalNodes(parsePipeline('a >> b'), parsePipeline('a>>b'))).toBe(true);
  });
});

/** Malformed pipelines: [source, column, a fragment of the message]. */
const MALFORMED: [string, number, string][] = [
  ['', 1, "expected a service name or '{', found end of input"],
  ['   ', 4, "expected a service name or '{', found end of input"],
  ['>>', 1, "expected a service name or '{', found '>>'"],
  ['a >>', 5, "expected a service name or '{', found end of input"],
  ['a >> >> b', 6, "expected a service name or '{', found '>>'"],
  ['>> a', 1, "found '>>'"],
  ['a > b', 3, "stages are joined by '>>'"],
  ['a >>> b', 5, 'found character ">"'],
  ['a b', 3, "expected '[', '@', '%', '{', '>>' or end of input, found name 'b'"],
  ['a,b', 2, "expected '[', '@', '%', '{', '>>' or end of input, found ','"],
  ['a}', 2, "found '}'"],
  ['a]', 2, "found ']'"],
  ['1a', 1, 'names start with a letter'],
  ['_a', 1, 'found character "_"'],
  ['-a', 1, 'found character "-"'],
  ['a.b', 2, "names are a letter followed by letters, digits, '_' or '-'"],
  ['a/b', 2, 'found character "/"'],
  ['a:b', 2, 'found character ":"'],
  ['é', 1, 'found character "é"'],
  ['a é', 3, 'found character "é"'],
  ['a%', 3, 'expected a positive integer after %, found end of input'],
  ['a%x', 3, "expected a positive integer after %, found name 'x'"],
  ['a%0', 3, 'N is an integer from 1 to 1000000000'],
  ['a%-1', 3, 'found character "-"'],
  ['a%1.5', 4, 'found character "."'],
  ['a%99999999999', 3, 'N is an integer from 1 to 1000000000'],
  ['a%3%4', 4, 'modifiers go in the order NAME[alias]@view%N'],
  ['a%3@v', 4, 'modifiers go in the order NAME[alias]@view%N'],
  ['a%3[x]', 4, 'modifiers go in the order NAME[alias]@view%N'],
  ['a@v[x]', 4, 'modifiers go in the order NAME[alias]@view%N'],
  ['a@v@w', 4, "expected '%', '{', '>>' or end of input, found '@'"],
  ['a[x][y]', 5, "expected '@', '%', '{', '>>' or end of input, found '['"],
  ['a[', 3, 'expected an alias name, found end of input'],
  ['a[]', 3, "expected an alias name, found ']'"],
  ['a[x', 4, "expected ']', found end of input"],
  ['a[x y]', 5, "expected ']', found name 'y'"],
  ['a[1]', 3, 'expected an alias name, found number 1'],
  ['a@', 3, 'expected a view name, found end of input'],
  ['a@1', 3, 'expected a view name, found number 1'],
  ['a@%3', 3, "expected a view name, found '%'"],
  ['@v', 1, "expected a service name or '{', found '@'"],
  ['%3', 1, "expected a service name or '{', found '%'"],
  ['[x]', 1, "found '['"],
  ['{', 2, "expected a service name or '{', found end of input"],
  ['{}M', 2, "expected a service name or '{', found '}'"],
  ['{a', 3, "expected '[', '@', '%', '{', '>>', ',' or '}', found end of input"],
  ['{a,', 4, "expected a service name or '{', found end of input"],
  ['{a,}M', 4, "found '}'"],
  ['{,a}M', 2, "found ','"],
  ['{a b}M', 4, "found name 'b'"],
  [
    '{a}',
    4,
    "expected a fusion service name after '}', found end of input (a group needs a merger, as in {a, b}RRF)",
  ],
  ['a{b}', 5, 'a group needs a merger'],
  ['{a}%3', 4, "expected a fusion service name after '}', found '%'"],
  ['{a} >> b', 5, "expected a fusion service name after '}', found '>>'"],
  ['{a}M{b}N', 5, "found '{'"],
  ['{a}M}', 5, "found '}'"],
  ['{a}}M', 4, "found '}'"],
  ['a}M', 2, "found '}'"],
  ['{a >> }M', 7, "found '}'"],
  ['{{a}M', 6, "expected '[', '@', '%', '>>', ',' or '}', found end of input"],
  ['{a}M >>', 8, 'found end of input'],
  ['a >> {b, c}', 12, 'a group needs a merger'],
  ['E{a}', 5, 'a group needs a merger'],
  ['E%3{a}', 7, 'a group needs a merger'],
  ['{a}M[', 6, 'expected an alias name'],
  ['{a}M@v@w', 7, "found '@'"],
  ['a\nb', 3, "found name 'b'"],
  [`${'a'.repeat(201)}`, 1, 'names are at most 200 characters'],
  [`${'{'.repeat(40)}a${'}M'.repeat(40)}`, 33, 'groups nest at most 32 deep'],
  ['a;b', 2, 'found character ";"'],
  ['a || b', 3, 'found character "|"'],
  ['a >> b%', 8, 'expected a positive integer after %'],
  ['"a"', 1, 'found character "\\""'],
];

describe(`${MALFORMED.length} malformed pipelines give ERR_PIPELINE_SYNTAX with the column and what was expected`, () => {
  it('there are at least 50', () => {
    expect(MALFORMED.length).toBeGreaterThanOrEqual(50);
  });

  it.each(MALFORMED)('%j', (source, column, fragment) => {
    let error: { code?: string; message: string; details?: Record<string, unknown> } | undefined;
    try {
      parsePipeline(source);
    } catch (caught) {
      error = caught as never;
    }
    expect(error?.code).toBe('ERR_PIPELINE_SYNTAX');
    expect(error?.message).toContain(`at column ${column}:`);
    expect(error?.message).toContain(fragment);
    expect(error?.message).toMatch(/expected .+, found .+/);
    expect(error?.details).toMatchObject({ column });
    expect(error?.details?.pointer).toMatch(/\^$/);
  });
});
