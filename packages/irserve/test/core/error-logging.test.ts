import { describe, expect, it } from 'vitest';
import { IrserveError } from '../../src/errors.js';
import { failureLevel, redactPaths } from '../../src/util/error-logging.js';

describe('5xx messages and logging', () => {
  it('drops the directories of absolute paths, not URLs or relative paths', () => {
    expect(redactPaths("ENOENT: no such file or directory, open '/srv/data/corpus.jsonl'")).toBe(
      "ENOENT: no such file or directory, open 'corpus.jsonl'",
    );
    expect(redactPaths('remote http://gpu-1:8000/search failed')).toBe(
      'remote http://gpu-1:8000/search failed',
    );
    expect(redactPaths('read data/docs.jsonl at C:\\corpora\\x\\docs.jsonl')).toBe(
      'read data/docs.jsonl at docs.jsonl',
    );
  });

  it('logs upstream failures and timeouts quietly, engine failures as errors, 4xx not at all', () => {
    expect(failureLevel(new IrserveError('ERR_UPSTREAM', 'x'))).toBe('debug');
    expect(failureLevel(new IrserveError('ERR_TIMEOUT', 'x'))).toBe('debug');
    expect(failureLevel(new IrserveError('ERR_ENGINE', 'x'))).toBe('error');
    expect(failureLevel(new IrserveError('ERR_BAD_REQUEST', 'x'))).toBeUndefined();
  });
});
