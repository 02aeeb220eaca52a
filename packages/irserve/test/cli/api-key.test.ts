import { describe, expect, it } from 'vitest';
import { isLoopback, resolveApiKey } from '../../src/cli/api-key.js';
import { createBearerCheck } from '../../src/auth/bearer.js';

describe('resolveApiKey', () => {
  it('prefers IRSERVE_API_KEY, accepts ROUTIR_API_KEY', () => {
    expect(resolveApiKey(undefined, { IRSERVE_API_KEY: 'k1' })).toEqual({
      apiKey: 'k1',
      warnings: [],
    });
    expect(resolveApiKey(undefined, { ROUTIR_API_KEY: 'k2' })).toEqual({
      apiKey: 'k2',
      warnings: [],
    });
  });

  it('warns that --api_key is visible in process listings', () => {
    const { apiKey, warnings } = resolveApiKey('k3', {});
    expect(apiKey).toBe('k3');
    expect(warnings.join(' ')).toMatch(/process listings/);
  });

  it('treats an empty variable as no key, with a warning', () => {
    const { apiKey, warnings } = resolveApiKey(undefined, { IRSERVE_API_KEY: '' });
    expect(apiKey).toBeUndefined();
    expect(warnings.join(' ')).toMatch(/empty/);
  });

  it('never puts the key in a warning', () => {
    const { warnings } = resolveApiKey('s3cret', { IRSERVE_API_KEY: 'other' });
    expect(warnings.join(' ')).not.toMatch(/s3cret|other/);
  });

  it('knows loopback hosts', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
  });
});

describe('bearer check', () => {
  const check = createBearerCheck('secret');
  it.each([
    ['Bearer secret', true],
    ['bearer secret', true],
    ['Bearer secreT', false],
    ['Bearer ', false],
    ['secret', false],
    ['Basic c2VjcmV0', false],
    [undefined, false],
    ['Bearer ' + 'x'.repeat(10_000), false],
  ])('%s -> %s', (header, expected) => {
    expect(check(header)).toBe(expected);
  });
});
