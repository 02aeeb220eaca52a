import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/util/progress.js';

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
});
