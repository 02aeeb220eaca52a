import type { Registry } from 'prom-client';

/**
 * A histogram and a counter kept by irserve and read by prom-client's registry at scrape time,
 * for the series recorded on every request (request count and duration, batch size, engine
 * time, cache lookups). They give the same exposition and JSON as prom-client's `Histogram` and
 * `Counter` (a test compares them) at a fraction of the cost per event: prom-client checks the
 * label names, builds a hash string and turns the bucket bound into a string key on every
 * observation (2-3 µs, five or six times per pipeline request); here a label set is looked up
 * once by its values (or bound once, `series`) and an observation adds to a typed array.
 */

/** A label set: label name to value (an interface such as RequestLabels, hence `object`). */
type Labels = object;

interface HistogramSeries {
  readonly labels: Labels;
  /** Observations per bucket (not cumulative); values above the last bound count in none. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** One value line as prom-client's metrics hand them to the registry. */
interface Value {
  labels: object;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
  exemplar?: null;
}

/** The key of a label set: its values in the order of the label names. */
function keyOf(names: readonly string[], labels: Labels): string {
  let key = '';
  for (const name of names) key += `${String((labels as Record<string, unknown>)[name])}\u0000`;
  return key;
}

/** Throws as prom-client does for a value that is not a finite number. */
function checkFinite(value: number): void {
  if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
}

/** A histogram with prom-client's exposition (`le` buckets, `+Inf`, `_sum`, `_count`). */
export class LocalHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #names: readonly string[];
  readonly #bounds: readonly number[];
  #series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
    registry: Registry,
  ) {
    this.#names = labelNames;
    this.#bounds = buckets;
    registry.registerMetric(this as never);
  }

  /** Records `value` under `labels`. */
  observe(labels: Labels, value: number): void {
    checkFinite(value);
    this.#add(this.#seriesOf(labels), value);
  }

  /** An observer of one label set, for a caller that records under it again and again. */
  series(labels: Labels): (value: number) => void {
    const key = keyOf(this.#names, labels);
    return (value) => {
      checkFinite(value);
      // Looked up again only when a reset has dropped it.
      const series = this.#series.get(key) ?? this.#seriesOf(labels);
      this.#add(series, value);
    };
  }

  reset(): void {
    this.#series = new Map();
  }

  /** What prom-client's `Histogram.get()` returns (labels merged into each line). */
  async get() {
    const metric = this.#metric();
    for (const value of metric.values) {
      value.labels = { ...value.labels, ...value.sharedLabels };
      delete value.sharedLabels;
    }
    return metric;
  }

  /** What the registry reads to write the exposition (series labels kept apart, as prom-client). */
  async getForPromString() {
    return this.#metric();
  }

  #seriesOf(labels: Labels): HistogramSeries {
    const key = keyOf(this.#names, labels);
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels, counts: new Float64Array(this.#bounds.length), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    return series;
  }

  #add(series: HistogramSeries, value: number): void {
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        series.counts[i]!++;
        break;
      }
    }
    series.sum += value;
    series.count += 1;
  }

  #metric() {
    const bucket = `${this.name}_bucket`;
    const values: Value[] = [];
    for (const series of this.#series.values()) {
      const shared = series.labels;
      let total = 0;
      this.#bounds.forEach((le, i) => {
        total += series.counts[i]!;
        values.push({
          labels: { le },
          sharedLabels: shared,
          value: total,
          metricName: bucket,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: shared,
          value: series.count,
          metricName: bucket,
          exemplar: null,
        },
        { labels: {}, sharedLabels: shared, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: shared, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }
}

/** A counter with prom-client's exposition. */
export class LocalCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly #names: readonly string[];
  #series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    registry: Registry,
  ) {
    this.#names = labelNames;
    registry.registerMetric(this as never);
  }

  /** Adds one under `labels`. */
  inc(labels: Labels): void {
    this.#seriesOf(keyOf(this.#names, labels), labels).value += 1;
  }

  /** A counter of one label set, for a caller that counts under it again and again. */
  series(labels: Labels): () => void {
    const key = keyOf(this.#names, labels);
    // By the key made once (a reset drops the series: it is made again at the next count).
    return () => {
      this.#seriesOf(key, labels).value += 1;
    };
  }

  reset(): void {
    this.#series = new Map();
  }

  #seriesOf(key: string, labels: Labels): { labels: Labels; value: number } {
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels, value: 0 };
      this.#series.set(key, series);
    }
    return series;
  }

  /** What prom-client's `Counter.get()` returns. */
  async get() {
    const values = [...this.#series.values()].map(({ labels, value }) => ({ value, labels }));
    return {
      help: this.help,
      name: this.name,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }
}
