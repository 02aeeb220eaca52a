import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
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
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ['eval', ...argv],
      {},
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('prints usage for --help', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--pipeline EXPR/);
  });

  it('names a missing option, or a bad one, with exit code 2', async () => {
    const missing = await run(['config.json', '--pipeline', 'bm25']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^irserve eval: --collection is required\nusage: irserve eval/);
    const bad = await run([
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
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--concurrency must be an integer from 1 to 1024, got "0"/);
  });
});
