import { describe, expect, it } from 'vitest';
import { tuneV8ForServing } from '../../src/util/v8-tuning.js';

describe('tuneV8ForServing', () => {
  it('leaves V8 as it is when the process was started with a pretenuring flag of its own', () => {
    expect(tuneV8ForServing({}, ['--allocation-site-pretenuring'])).toBe(false);
    expect(
      tuneV8ForServing({}, ['--max-old-space-size=4096', '--no-allocation-site-pretenuring']),
    ).toBe(false);
    expect(tuneV8ForServing({}, ['--allocation_site_pretenuring'])).toBe(false);
  });

  it('leaves V8 as it is with IRSERVE_V8_PRETENURING=on (or 1, true, yes)', () => {
    for (const value of ['on', 'ON', ' 1 ', 'true', 'yes'])
      expect(tuneV8ForServing({ IRSERVE_V8_PRETENURING: value }, [])).toBe(false);
  });

  // Sets the flag in this test process too: it only changes where V8 allocates, not what runs.
  it('turns pretenuring off in a process that made no choice', () => {
    expect(tuneV8ForServing({}, [])).toBe(true);
  });
});
