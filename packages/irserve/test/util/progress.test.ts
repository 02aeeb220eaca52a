import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration } from '../../src/util/progress.js';

describe('createProgress', () => {
  it('runs a bar when interactive (cli-progress is required on demand)', () => {
    // cli-progress draws only on a TTY (not under the test runner); what this checks is that the
    // on-demand require works and the bar's calls do not throw.
    const progress = createProgress({
      label: 'indexing',
      total: 4,
      interactive: true,
      logger: { info: () => undefined },
      unit: 'docs',
    });
    progress.tick(2);
    progress.update(3);
    expect(() => progress.done()).not.toThrow();
  });

  it('logs a closing line when not interactive', () => {
    const lines: string[] = [];
    const progress = createProgress({
      label: 'indexing',
      total: 4,
      interactive: false,
      logger: { info: (line) => lines.push(line) },
    });
    progress.tick(4);
    progress.done();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^indexing: 4\/4 \(100%\) done in \d+\.\ds$/);
  });

  it('logs every interval with the time left from the rate so far', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = createProgress({
      label: 'encode',
      total: 1000,
      interactive: false,
      logger: { info: (line) => lines.push(line) },
      unit: 'docs',
      logEveryMs: 5000,
      now: () => clock,
    });
    clock = 4000;
    progress.update(100); // before the interval: no line
    clock = 10_000;
    progress.update(250);
    clock = 20_000;
    progress.update(1000);
    progress.done();
    expect(lines).toEqual([
      'encode: 250/1000 docs (25%) after 10.0s, about 30s left',
      'encode: 1000/1000 docs (100%) after 20.0s',
      'encode: 1000/1000 docs (100%) done in 20.0s',
    ]);
  });

  it('formats durations as a progress line shows them', () => {
    expect([0, 42.4, 185, 3725].map(formatDuration)).toEqual(['0s', '42s', '3m 05s', '1h 02m']);
  });
});
