import { describe, expect, it } from 'vitest';
import { applySingleTemplate, singleTemplate } from '../src/tokenizer/special-template.js';

describe('the special tokens around one text, found once', () => {
  it('reads a fixed prefix and suffix with their token types', () => {
    const bert = (ids: number[]) => ({
      tokens: [101, ...ids, 102],
      typeIds: [0, ...ids.map(() => 0), 0],
    });
    const template = singleTemplate(bert)!;
    expect(template).toEqual({
      prefix: [101],
      prefixTypes: [0],
      suffix: [102],
      suffixTypes: [0],
      type: 0,
    });
    for (const ids of [[], [5], [7, 8, 9, 10]])
      expect(applySingleTemplate(template, ids)).toEqual(bert(ids));
    const t5 = (ids: number[]) => ({ tokens: [...ids, 1], typeIds: [...ids.map(() => 2), 3] });
    expect(applySingleTemplate(singleTemplate(t5)!, [4, 4])).toEqual(t5([4, 4]));
  });

  it('refuses a processor that is not one fixed template (every row then goes through it)', () => {
    const byLength = (ids: number[]) => ({
      tokens: ids.length > 1 ? [9, ...ids] : [...ids],
      typeIds: (ids.length > 1 ? [9, ...ids] : ids).map(() => 0),
    });
    expect(singleTemplate(byLength)).toBeNull();
    const reordering = (ids: number[]) => ({
      tokens: [...ids].reverse(),
      typeIds: ids.map(() => 0),
    });
    expect(singleTemplate(reordering)).toBeNull();
    const mixedTypes = (ids: number[]) => ({ tokens: ids, typeIds: ids.map((_, i) => i) });
    expect(singleTemplate(mixedTypes)).toBeNull();
    const dropping = (ids: number[]) => ({
      tokens: ids.slice(1),
      typeIds: ids.slice(1).map(() => 0),
    });
    expect(singleTemplate(dropping)).toBeNull();
  });
});
