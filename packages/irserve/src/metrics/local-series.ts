import type { Registry } from 'prom-client';
import { LabelIndex, type Labels } from './label-index.js';

/**
 * A histogram and a counter kept by irserve and read by prom-client's registry at scrape time,
 * for the series recorded on every request (request count and duration, batch size, engine
 * time, cache lookups). They give the same exposition and JSON as prom-client's `Histogram` and
 * `Counter` (a test compares them) at a fraction of the cost per event: prom-client checks the
 * label names, builds a hash string and turns the bucket bound into a string key on every
 * observation (2-3 µs, five or six times per pipeline request); here a label set is looked up
 * once by its values (or bound once, `series`) and an observation adds to a typed array.
 */

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

/** Throws as prom-client does for a value that is not a finite number. */
function checkFinite(value: number): void {
  if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
}

/** A histogram with prom-client's exposition (`le` buckets, `+Inf`, `_sum`, `_count`). */
export class LocalHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  readonly #series: LabelIndex<HistogramSeries>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
    registry: Registry,
  ) {
    this.#bounds = buckets;
    this.#series = new LabelIndex(labelNames, (labels) => ({
      labels,
      counts: new Float64Array(buckets.length),
      sum: 0,
      count: 0,
    }));
    registry.registerMetric(this as never);
  }

  /** Records `value` under `labels`. */
  observe(labels: Labels, value: number): void {
    checkFinite(value);
    this.#add(this.#series.get(labels), value);
  }

  /** An observer of one label set, for a caller that records under it again and again. */
  series(labels: Labels): (value: number) => void {
    const series = this.#series.bind(labels);
    return (value) => {
      checkFinite(value);
      this.#add(series(), value);
    };
  }

  reset(): void {
    this.#series.clear();
  }

  /** Each label set's number of observations, as counter values (see `LocalHistogramCount`). */
  counts(): { value: number; labels: Labels }[] {
    return this.#series.values().map(({ labels, count }) => ({ value: count, labels }));
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

/** What a counter hands prom-client's registry: one value per label set. */
interface CounterValue {
  value: number;
  labels: Labels;
}

/** A counter as prom-client's registry reads it (`get()`), its values kept by the subclass. */
abstract class CounterMetric {
  readonly type = 'counter';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  abstract reset(): void;

  protected abstract values(): CounterValue[];

  /** What prom-client's `Counter.get()` returns. */
  async get() {
    return {
      help: this.help,
      name: this.name,
      type: this.type,
      values: this.values(),
      aggregator: this.aggregator,
    };
  }
}

/** A counter with prom-client's exposition. */
export class LocalCounter extends CounterMetric {
  readonly #series: LabelIndex<{ labels: Labels; value: number }>;

  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
    super(name, help, registry);
    this.#series = new LabelIndex(labelNames, (labels) => ({ labels, value: 0 }));
  }

  /** Adds one under `labels`. */
  inc(labels: Labels): void {
    this.#series.get(labels).value += 1;
  }

  /** A counter of one label set, for a caller that counts under it again and again. */
  series(labels: Labels): () => void {
    // Found once (a reset drops the series: it is made again at the next count).
    const series = this.#series.bind(labels);
    return () => {
      series().value += 1;
    };
  }

  reset(): void {
    this.#series.clear();
  }

  protected values(): CounterValue[] {
    return this.#series.values().map(({ labels, value }) => ({ value, labels }));
  }
}

/**
 * A counter whose values are a histogram's observation counts, under a name of its own: for a
 * count that the histogram keeps anyway (requests answered, beside their durations), so that an
 * event is looked up once, not once per series. Its exposition is that of a `LocalCounter`
 * counted at every observation; a reset of the histogram resets it.
 */
export class LocalHistogramCount extends CounterMetric {
  readonly #histogram: LocalHistogram;

  constructor(name: string, help: string, histogram: LocalHistogram, registry: Registry) {
    super(name, help, registry);
    this.#histogram = histogram;
  }

  /** Nothing of its own to reset: the histogram's reset clears its counts. */
  reset(): void {}

  protected values(): CounterValue[] {
    return this.#histogram.counts();
  }
}
