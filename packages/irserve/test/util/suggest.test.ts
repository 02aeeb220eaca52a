import { describe, expect, it } from 'vitest';
import { closest } from '../../src/util/suggest.js';

const POSTGRES_KEYS = ['connection_string', 'host', 'port', 'database', 'user', 'ssl', 'table'];

describe('closest: the "did you mean" of unknown keys and names', () => {
  it('suggests a typo by edit distance', () => {
    expect(closest('batch_sise', ['batch_size', 'cache'])).toBe('batch_size');
    expect(closest('BM52', ['BM25', 'RRF'])).toBe('BM25');
    expect(closest('k2', ['k1', 'b'])).toBe('k1');
  });

  it('suggests what a name from another tool means, not the nearest spelling', () => {
    expect(closest('url', POSTGRES_KEYS)).toBe('connection_string');
    expect(closest('DSN', POSTGRES_KEYS)).toBe('connection_string');
    expect(closest('dbname', POSTGRES_KEYS)).toBe('database');
    expect(closest('url', ['base_url', 'model', 'timeout'])).toBe('base_url');
    expect(closest('token', ['api_key', 'base_url'])).toBe('api_key');
  });

  it('does not take two changed letters of three for a typo', () => {
    expect(closest('abc', ['ssl', 'xyz'])).toBeUndefined();
    expect(closest('url', ['ssl', 'port'])).toBeUndefined();
  });

  it('suggests the only key of which the word is a part', () => {
    expect(closest('index', ['index_path', 'model_path', 'limit'])).toBe('index_path');
    expect(closest('path', ['index_path', 'model_path'])).toBeUndefined();
  });

  it('finds nothing for names of Object.prototype', () => {
    expect(closest('constructor', POSTGRES_KEYS)).toBeUndefined();
    expect(closest('__proto__', POSTGRES_KEYS)).toBeUndefined();
  });
});
