import { afterEach, describe, expect, it, vi } from 'vitest';
import { runEvalCommand } from '../../src/cli/eval.js';
import { runQueries } from '../../src/eval/run-queries.js';

// Argument handling needs no app (the real one is exercised in eval-e2e.test.ts).
vi.mock('../../src/app.js', () => ({ createApp: vi.fn() }));

describe('runQueries', () => {
  it('runs every query with bounded concurrency and keeps query order', async () => {
    let inFlight = 0;
    let peak = 0;
    const queries = Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, text: `t${i}` }));
    const run = await runQueries({
      queries,
      concurrency: 4,
      retrieve: async (q) => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        inFlight--;
        return { [q.text]: 1 };
      },
    });
    expect(peak).toBe(4);
    expect([...run.keys()]).toEqual(queries.map((q) => q.id));
    expect(run.get('q7')).toEqual({ t7: 1 });
  });

  it('stops at the first failure, naming the query', async () => {
    const queries = [
      { id: 'a', text: 'ok' },
      { id: 'b', text: 'boom' },
    ];
    await expect(
      runQueries({
        queries,
        concurrency: 1,
        retrieve: async (q) => {
          if (q.text === 'boom') throw new Error('engine down');
          return {};
        },
      }),
    ).rejects.toThrow('query b: engine down');
  });
});

describe('irserve eval arguments', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints usage for --help', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(await runEvalCommand(['--help'])).toBe(0);
    expect(log.mock.calls[0]![0]).toMatch(/--pipeline/);
  });

  it('names a missing option', async () => {
    await expect(runEvalCommand(['config.json', '--pipeline', 'bm25'])).rejects.toThrow(
      /--collection/,
    );
    await expect(
      runEvalCommand([
        'c.json',
        '--pipeline',
        'p',
        '--collection',
        'c',
        '--queries',
        'q',
        '--qrels',
        'r',
        '--concurrency',
        '0',
      ]),
    ).rejects.toThrow(/--concurrency/);
  });
});
