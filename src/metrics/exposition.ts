/**
 * Counters, gauges and histograms, rendered in the Prometheus text format (version 0.0.4). loom
 * needs only this much of a metrics library; a full one (prom-client, with its cluster aggregation,
 * push gateway and OpenTelemetry imports) brought four packages and about 2.5 MiB of resident memory
 * to the host for nothing it used. Names, types, label values, bucket bounds and number formatting are as
 * prom-client printed them, so dashboards built on its output keep working; metrics come in
 * registration order, a blank line between them, labels in `labelNames` order. Two differences no
 * query can see: `le` comes after a histogram's other labels (prom-client put it first), and a metric
 * shows no sample until its first update (prom-client showed an unlabelled one at 0 from the start):
 * loom's own metrics all have labels, and a process metric that cannot be read is better absent than 0.
 */
import { checkMetricNames } from './metric-names.ts';

/** One label value per label name. */
export type Labels<N extends string> = Readonly<Record<N, string>>;

/** One line of the exposition: a series name (`x_bucket`, `x_sum` for a histogram), labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface MetricOptions<N extends string> {
  name: string;
  help: string;
  labelNames?: readonly N[];
}

/** Runs before a scrape reads the metric, to set values that are read rather than counted. */
type Collect<M> = (metric: M) => void | Promise<void>;

/** Label values in `labelNames` order, as a map key and for rendering. */
interface Series {
  values: readonly string[];
}

abstract class Metric<N extends string, S extends Series> {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly N[];
  protected readonly series = new Map<string, S>();
  protected collect: (() => void | Promise<void>) | undefined;

  constructor({ name, help, labelNames = [] }: MetricOptions<N>) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** Drops every series. */
  reset(): void {
    this.series.clear();
  }

  /** Drops every series whose labels include all of `labels` (a metric's other labels may take any value). */
  remove(labels: Partial<Labels<N>>): void {
    const wanted = Object.entries(labels) as [N, string][];
    for (const [key, series] of this.series) {
      if (wanted.every(([name, value]) => series.values[this.labelNames.indexOf(name)] === value)) this.series.delete(key);
    }
  }

  /** The current samples, after the metric's collect hook (if any) has run. */
  async samples(): Promise<Sample[]> {
    await this.collect?.();
    return [...this.series.values()].flatMap((s) => this.samplesOf(s));
  }

  protected abstract create(values: readonly string[]): S;

  protected abstract samplesOf(series: S): Sample[];

  /** The series for `labels`, created on first use. */
  protected seriesFor(labels: Labels<N>): S {
    const values = this.labelNames.map((n) => {
      const value = labels[n];
      if (typeof value !== 'string') throw new Error(`${this.name}: label ${n} is missing`);
      return value;
    });
    // Unambiguous whatever the values hold, unlike joining them with a separator.
    const key = JSON.stringify(values);
    let series = this.series.get(key);
    if (!series) this.series.set(key, series = this.create(values));
    return series;
  }

  protected labelsOf(series: S): Record<string, string> {
    return Object.fromEntries(this.labelNames.map((n, i) => [n, series.values[i]!]));
  }
}

interface ValueSeries extends Series {
  value: number;
}

abstract class ValueMetric<N extends string> extends Metric<N, ValueSeries> {
  protected override create(values: readonly string[]): ValueSeries {
    return { values, value: 0 };
  }

  protected override samplesOf(series: ValueSeries): Sample[] {
    return [{ name: this.name, labels: this.labelsOf(series), value: series.value }];
  }
}

/** A value that only goes up (restarting from 0 with the process). */
export class Counter<N extends string = never> extends ValueMetric<N> {
  readonly type = 'counter';

  constructor(options: MetricOptions<N> & { collect?: Collect<Counter<N>> }) {
    super(options);
    const { collect } = options;
    if (collect) this.collect = () => collect(this);
  }

  inc(labels: Labels<N>, by = 1): void {
    // A counter that went down reads as a restart to rate(): refuse rather than corrupt the series.
    if (!(by >= 0)) throw new Error(`${this.name}: a counter cannot be increased by ${by}`);
    this.seriesFor(labels).value += by;
  }
}

/** A value that goes up and down. */
export class Gauge<N extends string = never> extends ValueMetric<N> {
  readonly type = 'gauge';

  constructor(options: MetricOptions<N> & { collect?: Collect<Gauge<N>> }) {
    super(options);
    const { collect } = options;
    if (collect) this.collect = () => collect(this);
  }

  set(labels: Labels<N>, value: number): void {
    this.seriesFor(labels).value = value;
  }

  inc(labels: Labels<N>, by = 1): void {
    this.seriesFor(labels).value += by;
  }

  dec(labels: Labels<N>, by = 1): void {
    this.seriesFor(labels).value -= by;
  }
}

/** prom-client's default buckets, which loom's dashboards were built on. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface HistogramSeries extends Series {
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/** Observations counted in buckets by upper bound, with their sum and count. */
export class Histogram<N extends string = never> extends Metric<N, HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];

  constructor(options: MetricOptions<N> & { buckets?: readonly number[] }) {
    super(options);
    this.buckets = [...options.buckets ?? DEFAULT_BUCKETS].sort((a, b) => a - b);
  }

  observe(labels: Labels<N>, value: number): void {
    const series = this.seriesFor(labels);
    const bucket = this.buckets.findIndex((bound) => value <= bound);
    series.counts[bucket === -1 ? this.buckets.length : bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  protected override samplesOf(s: HistogramSeries): Sample[] {
    const labels = this.labelsOf(s);
    let cumulative = 0;
    const buckets = this.buckets.map((bound, i) => {
      cumulative += s.counts[i]!;
      return { name: `${this.name}_bucket`, labels: { ...labels, le: formatValue(bound) }, value: cumulative };
    });
    return [
      ...buckets,
      { name: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count },
      { name: `${this.name}_sum`, labels, value: s.sum },
      { name: `${this.name}_count`, labels, value: s.count },
    ];
  }

  protected override create(values: readonly string[]): HistogramSeries {
    return { values, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }
}

type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>;

/** The metrics one `/metrics` endpoint serves. */
export class Registry {
  readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';
  readonly #metrics = new Map<string, AnyMetric>();

  counter<N extends string = never>(options: MetricOptions<N> & { collect?: Collect<Counter<N>> }): Counter<N> {
    return this.#add(new Counter(options));
  }

  gauge<N extends string = never>(options: MetricOptions<N> & { collect?: Collect<Gauge<N>> }): Gauge<N> {
    return this.#add(new Gauge(options));
  }

  histogram<N extends string = never>(options: MetricOptions<N> & { buckets?: readonly number[] }): Histogram<N> {
    return this.#add(new Histogram(options));
  }

  /** The metric named `name`, if registered. */
  get(name: string): AnyMetric | undefined {
    return this.#metrics.get(name);
  }

  /** Every metric in the text format. Collect hooks run in registration order, one at a time. */
  async metrics(): Promise<string> {
    const blocks: string[] = [];
    for (const metric of this.#metrics.values()) {
      const lines = [`# HELP ${metric.name} ${escapeHelp(metric.help)}`, `# TYPE ${metric.name} ${metric.type}`];
      // A metric whose reading fails (a /proc file that cannot be read, say) is left without samples
      // rather than costing the scrape every other series.
      const samples = await metric.samples().catch(() => []);
      for (const sample of samples) lines.push(formatSample(sample));
      blocks.push(lines.join('\n'));
    }
    return `${blocks.join('\n\n')}\n`;
  }

  #add<M extends AnyMetric>(metric: M): M {
    checkMetricNames(metric.name, metric.labelNames, metric.type);
    if (this.#metrics.has(metric.name)) throw new Error(`a metric named ${metric.name} is already registered`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }
}

/** A sample value as the text format wants it: JavaScript's own rendering, and `+Inf`, `-Inf`, `NaN` (prom-client printed `Nan`). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatSample({ name, labels, value }: Sample): string {
  const pairs = Object.entries(labels).map(([label, v]) => `${label}="${escapeLabelValue(v)}"`);
  return `${name}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${formatValue(value)}`;
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

function escapeLabelValue(text: string): string {
  return escapeHelp(text).replaceAll('"', '\\"');
}
