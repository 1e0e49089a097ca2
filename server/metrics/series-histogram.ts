
/** One label set's observations: counts per bucket (not cumulative), their sum and count. */
export class Series {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }

  observe(value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }
}

/** A sample as prom-client's registry prints it: `labels` first, then the series' `sharedLabels`. */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Readonly<Record<string, string>>;
  value: number;
  metricName?: string;
  /** prom-client's histograms carry `null` here on every bucket (no exemplars are kept). */
  exemplar?: null;
}

/**
 * A histogram whose label sets are looked up once and then observed with a few array writes,
 * exposed through a prom-client registry in prom-client's own form (`_bucket` with `le`,
 * `_sum`, `_count`; optionally a counter of the same observations).
 *
 * prom-client validates and hashes the labels on every `observe`, through `labels()` children
 * too: for the per-request metrics that was about 9 % of the server's CPU under
 * `GET /incidents/{id}` on PostgreSQL (profiles, docs/benchmarks.md). Scrapes, which are rare,
 * do the formatting.
 */
export class SeriesHistogram {
  private readonly series = new Map<string, Series>();

  constructor(
    /** A prom-client `Registry`, of either content type. */
    registry: { registerMetric(metric: never): void },
    private readonly options: {
      name: string;
      help: string;
      labelNames: readonly string[];
      buckets: readonly number[];
      /** Also expose the observation count as a counter of its own name. */
      counter?: { name: string; help: string };
    },
  ) {
    const sorted = [...options.buckets].sort((a, b) => a - b);
    this.bounds = sorted;
    registry.registerMetric(this.metric('histogram', options.name, options.help, () => this.histogramSamples()) as never);
    const counter = options.counter;
    if (counter) registry.registerMetric(this.metric('counter', counter.name, counter.help, () => this.counterSamples()) as never);
  }

  private readonly bounds: readonly number[];

  /** The series of these label values, in `labelNames` order: keep it, and observe on it. */
  of(...values: string[]): Series {
    const key = values.join('\u0000');
    let found = this.series.get(key);
    if (!found) {
      const labels = Object.fromEntries(this.options.labelNames.map((name, i) => [name, values[i] ?? '']));
      found = new Series(labels, this.bounds);
      this.series.set(key, found);
    }
    return found;
  }

  private histogramSamples(): Sample[] {
    const name = this.options.name;
    const samples: Sample[] = [];
    for (const series of this.series.values()) {
      let cumulative = 0;
      const sharedLabels = series.labels;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        samples.push({ labels: { le: bound }, sharedLabels, value: cumulative, metricName: `${name}_bucket`, exemplar: null });
      });
      samples.push({ labels: { le: '+Inf' }, sharedLabels, value: series.count, metricName: `${name}_bucket`, exemplar: null });
      samples.push({ labels: {}, sharedLabels, value: series.sum, metricName: `${name}_sum` });
      samples.push({ labels: {}, sharedLabels, value: series.count, metricName: `${name}_count` });
    }
    return samples;
  }

  private counterSamples(): Sample[] {
    return [...this.series.values()].map((series) => ({ labels: { ...series.labels }, value: series.count }));
  }

  /**
   * What a prom-client registry reads from a metric: `getForPromString` for the text formats
   * (labels, then the series' shared labels, as prom-client's Histogram prints them), `get` for
   * JSON (labels merged), both under the metric's current name (the registry renames counters
   * for OpenMetrics), and `reset`, which zeroes every series: callers keep the series they
   * looked up (`of`), and those must go on counting.
   */
  private metric(type: 'histogram' | 'counter', name: string, help: string, samples: () => Sample[]) {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum' as const,
      getForPromString: async () => ({ name: metric.name, help, type, aggregator: 'sum' as const, values: samples() }),
      get: async () => ({
        name: metric.name,
        help,
        type,
        aggregator: 'sum' as const,
        values: samples().map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...sharedLabels, ...labels } })),
      }),
      reset: () => {
        for (const series of this.series.values()) series.reset();
      },
    };
    return metric;
  }
}
