import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  LocalCounter,
  LocalHistogram,
  LocalHistogramCount,
} from '../../src/metrics/local-series.js';

const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A deterministic pseudo-random sequence. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** Both registries' text and JSON after the same events. */
async function bothWays(record: (h: HistogramLike, c: CounterLike) => void) {
  const theirs = new Registry();
  const ours = new Registry();
  const labelNames = ['service', 'role', 'outcome'];
  record(
    new Histogram({
      name: 'h_seconds',
      help: 'A "help" \\ text',
      labelNames,
      buckets: BOUNDS,
      registers: [theirs],
    }),
    new Counter({ name: 'c_total', help: 'Counted.', labelNames, registers: [theirs] }),
  );
  record(
    new LocalHistogram('h_seconds', 'A "help" \\ text', labelNames, BOUNDS, ours),
    new LocalCounter('c_total', 'Counted.', labelNames, ours),
  );
  return {
    theirs: { text: await theirs.metrics(), json: await theirs.getMetricsAsJSON() },
    ours: { text: await ours.metrics(), json: await ours.getMetricsAsJSON() },
  };
}

/** A prom-client Histogram and a LocalHistogram alike, each in a registry of its own. */
function histogramsSideBySide(name: string, labelNames: string[], buckets: number[]) {
  const theirs = new Registry();
  const ours = new Registry();
  const h = new Histogram({ name, help: name, labelNames, buckets, registers: [theirs] });
  const local = new LocalHistogram(name, name, labelNames, buckets, ours);
  return { theirs, ours, h, local };
}

interface HistogramLike {
  observe(labels: Record<string, string>, value: number): void;
  reset(): void;
}
interface CounterLike {
  inc(labels: Record<string, string>): void;
}

describe('LocalHistogram and LocalCounter', () => {
  it("give prom-client's exposition and JSON for the same events", async () => {
    const next = sequence(5);
    const events = Array.from({ length: 3000 }, () => {
      const pick = next();
      // Values on the bounds, between them, above the last, zero and negative.
      const value =
        pick < 0.2
          ? BOUNDS[Math.floor(next() * BOUNDS.length)]!
          : pick < 0.25
            ? 31 + next() * 100
            : pick < 0.27
              ? 0
              : pick < 0.28
                ? -next()
                : next() ** 4 * 3;
      const labels = {
        service: ['bm25', 'dense', 'a "quoted"\nname'][Math.floor(next() * 3)]!,
        role: next() < 0.5 ? 'search' : 'fuse',
        outcome: next() < 0.9 ? 'ok' : 'error',
      };
      return { labels, value };
    });
    const { theirs, ours } = await bothWays((histogram, counter) => {
      for (const { labels, value } of events) {
        histogram.observe(labels, value);
        counter.inc(labels);
      }
    });
    expect(ours.text).toBe(theirs.text);
    expect(ours.json).toEqual(theirs.json);
  });

  it('bound observers (series) record as observe does, and start again after a reset', async () => {
    const { theirs, ours, h, local } = histogramsSideBySide('b', ['service', 'role'], [1, 2, 4]);
    const bound = local.series({ service: 's', role: 'search' });
    // Nothing recorded: no series (binding one creates none).
    expect(await ours.metrics()).toBe(await theirs.metrics());
    for (const size of [1, 3, 8, 2]) {
      h.observe({ service: 's', role: 'search' }, size);
      bound(size);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    h.reset();
    local.reset();
    h.observe({ service: 's', role: 'search' }, 5);
    bound(5);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('bound counters (series) count as inc does, and start again after a reset', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const labelNames = ['service', 'role', 'store'];
    const labels = { service: 's', role: 'search', store: 'memory' };
    const c = new Counter({ name: 'k_total', help: 'k', labelNames, registers: [theirs] });
    const local = new LocalCounter('k_total', 'k', labelNames, ours);
    const bound = local.series(labels);
    // Nothing counted: no series (binding one creates none).
    expect(await ours.metrics()).toBe(await theirs.metrics());
    for (let i = 0; i < 3; i++) {
      c.inc(labels);
      bound();
    }
    c.inc({ ...labels, store: 'redis' });
    local.inc({ ...labels, store: 'redis' });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    c.reset();
    local.reset();
    c.inc(labels);
    bound();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it("counts a histogram's observations as a counter counted beside it would, resets included", async () => {
    const labelNames = ['route', 'status'];
    const { theirs, ours, h, local } = histogramsSideBySide('r_seconds', labelNames, BOUNDS);
    // The count is registered after the histogram it reads; theirs in the same order.
    const c = new Counter({ name: 'r_total', help: 'r', labelNames, registers: [theirs] });
    new LocalHistogramCount('r_total', 'r', local, ours);
    // Nothing observed: no series.
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const events: [Record<string, string>, number][] = [
      [{ route: '/search', status: '200' }, 0.002],
      [{ route: '/search', status: '200' }, 0.3],
      [{ route: '/pipeline', status: '504' }, 12],
      [{ route: '/search', status: '200' }, 0],
    ];
    for (const [labels, seconds] of events) {
      c.inc(labels);
      h.observe(labels, seconds);
      local.observe(labels, seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    theirs.resetMetrics();
    ours.resetMetrics();
    c.inc({ route: '/search', status: '400' });
    h.observe({ route: '/search', status: '400' }, 0.01);
    local.observe({ route: '/search', status: '400' }, 0.01);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const local = new LocalHistogram('x', 'x', ['service'], [1], new Registry());
    expect(() => local.observe({ service: 's' }, NaN)).toThrow(TypeError);
    expect(() => local.series({ service: 's' })(Infinity)).toThrow(/not a valid number/);
  });
});
