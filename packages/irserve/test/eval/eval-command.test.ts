import { describe, expect, it, vi } from 'vitest';
import { runIrserve } from '../helpers/run-cli.js';
import { runQueries, TooManyFailures } from '../../src/eval/run-queries.js';

// Argument handling needs no app (the real one is exercised in eval-e2e.test.ts).
vi.mock('../../src/app.js', () => ({ createApp: vi.fn() }));

describe('runQueries', () => {
  it('runs every query with bounded concurrency and keeps query order', async () => {
    let inFlight = 0;
    let peak = 0;
    const queries = Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, text: `t${i}` }));
    const { runs, failures } = await runQueries({
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
    expect(failures).toEqual([]);
    expect([...runs[0]!.keys()]).toEqual(queries.map((q) => q.id));
    expect(runs[0]!.get('q7')).toEqual({ t7: 1 });
  });

  it('runs the pipelines of one query before the next query (shared stages hit the cache)', async () => {
    const calls: string[] = [];
    const queries = [
      { id: 'a', text: 'a' },
      { id: 'b', text: 'b' },
    ];
    const { runs } = await runQueries({
      queries,
      pipelines: 3,
      concurrency: 1,
      retrieve: async (q, pipeline) => {
        calls.push(`${q.id}${pipeline}`);
        return { [`d${pipeline}`]: 1 };
      },
    });
    expect(calls).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2']);
    expect(runs.map((run) => run.get('b'))).toEqual([{ d0: 1 }, { d1: 1 }, { d2: 1 }]);
  });

  it('records a failed query, goes on, and gives it an empty result', async () => {
    const queries = [
      { id: 'a', text: 'ok' },
      { id: 'b', text: 'boom' },
      { id: 'c', text: 'ok' },
    ];
    const seen: string[] = [];
    const { runs, failures } = await runQueries({
      queries,
      concurrency: 1,
      onFailure: (f) => seen.push(f.query),
      retrieve: async (q) => {
        if (q.text === 'boom') throw new Error('engine down');
        return { d: 1 };
      },
    });
    expect(failures).toEqual([{ pipeline: 0, query: 'b', message: 'engine down' }]);
    expect(seen).toEqual(['b']);
    expect(runs[0]!.get('b')).toEqual({});
    expect(runs[0]!.get('c')).toEqual({ d: 1 });
  });

  it('stops once more than maxFailures queries failed', async () => {
    let calls = 0;
    const queries = Array.from({ length: 50 }, (_, i) => ({ id: `q${i}`, text: 't' }));
    const run = runQueries({
      queries,
      concurrency: 1,
      maxFailures: 2,
      retrieve: async () => {
        calls++;
        throw new Error('down');
      },
    });
    await expect(run).rejects.toThrow(
      /stopped after 3 failed queries \(the last: query q2: down\)/,
    );
    await expect(run).rejects.toBeInstanceOf(TooManyFailures);
    expect(calls).toBe(3);
  });
});

describe('irserve eval arguments', () => {
  const run = (argv: string[]) => runIrserve(['eval', ...argv]);
  const files = ['--queries', 'q', '--qrels', 'r'];

  it('prints usage for --help', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--pipeline EXPR/);
    expect(help.out).toMatch(/--max_failures N/);
  });

  it('names a missing option, or a bad one, with exit code 2', async () => {
    const missing = await run(['config.json', '--pipeline', 'bm25']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^irserve eval: --queries is required\nusage: irserve eval/);
    expect((await run(['config.json', ...files])).err).toMatch(/--pipeline is required/);
    const bad = await run(['c.json', '--pipeline', 'p', ...files, '--concurrency', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--concurrency must be an integer from 1 to 1024, got "0"/);
  });

  it('refuses a measure it cannot compute, naming it, before reading any file', async () => {
    const result = await run([
      'c.json',
      '--pipeline',
      'p',
      ...files,
      '--measures',
      'nDCG@10,ERR@20',
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/--measures: measure "ERR@20": unknown measure ERR/);
  });
});
