/** A label set: label name to value (an interface such as RequestLabels, hence `object`). */
export type Labels = object;

/**
 * The series of one metric, found by their label values: one Map level per label name, keyed by
 * the value as a string. No key is built per event: the values a request brings (a route
 * template, a service name from a parsed body, a status from `String(number)`) are strings V8
 * has usually hashed already, where a key joined from them is a new string to flatten and hash
 * on every event (about 2.7 µs of a cache hit's CPU in a server profile, against 0.5 µs in a
 * loop). Values that are not strings count as their `String()` (as prom-client writes them).
 *
 * @example
 * const index = new LabelIndex(['route', 'status'], (labels) => ({ labels, n: 0 }));
 * index.get({ route: '/search', status: '200' }).n++;
 */
export class LabelIndex<S> {
  readonly #names: readonly string[];
  readonly #create: (labels: Labels) => S;
  #root = new Map<string, unknown>();
  #all: S[] = [];
  #generation = 0;

  /** `create` makes the series of a label set the first time it is seen. */
  constructor(names: readonly string[], create: (labels: Labels) => S) {
    this.#names = names;
    this.#create = create;
  }

  /** The series of `labels`. */
  get(labels: Labels): S {
    const names = this.#names;
    const last = names.length - 1;
    let level = this.#root;
    for (let i = 0; i < last; i++) {
      const value = valueOf(labels, names[i]!);
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const key = last < 0 ? '' : valueOf(labels, names[last]!);
    let series = level.get(key) as S | undefined;
    if (series === undefined) {
      series = this.#create(labels);
      level.set(key, series);
      this.#all.push(series);
    }
    return series;
  }

  /**
   * A finder of one label set's series for a caller that records under it again and again: the
   * series is looked up once, and again only after a `clear` (which drops it).
   */
  bind(labels: Labels): () => S {
    let generation = -1;
    let series: S | undefined;
    return () => {
      if (generation !== this.#generation || series === undefined) {
        series = this.get(labels);
        generation = this.#generation;
      }
      return series;
    };
  }

  /** Every series, in the order they were first seen (the exposition's order). */
  values(): readonly S[] {
    return this.#all;
  }

  /** Drops every series. */
  clear(): void {
    this.#root = new Map();
    this.#all = [];
    this.#generation++;
  }
}

function valueOf(labels: Labels, name: string): string {
  const value = (labels as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : String(value);
}
