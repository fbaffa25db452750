import { describe, expect, it } from 'vitest';
import { DEFAULT_BUCKETS, formatValue, Registry } from './exposition.ts';

describe('text format', () => {
  it('prints HELP, TYPE and samples, a blank line between metrics and a newline at the end', async () => {
    const registry = new Registry();
    registry.counter({ name: 'jobs_total', help: 'Jobs done.', labelNames: ['queue'] }).inc({ queue: 'a' }, 2);
    registry.gauge({ name: 'temperature', help: 'Degrees.' }).set({}, 21.5);
    expect(await registry.metrics()).toBe([
      '# HELP jobs_total Jobs done.',
      '# TYPE jobs_total counter',
      'jobs_total{queue="a"} 2',
      '',
      '# HELP temperature Degrees.',
      '# TYPE temperature gauge',
      'temperature 21.5',
      '',
    ].join('\n'));
  });

  it('leaves a metric whose collect hook throws without samples, and prints the others', async () => {
    const registry = new Registry();
    registry.gauge({ name: 'broken', help: 'Cannot be read.', collect: () => {
      throw new Error('no /proc here');
    } });
    registry.gauge({ name: 'fine', help: 'Readable.' }).set({}, 1);
    expect(await registry.metrics()).toBe('# HELP broken Cannot be read.\n# TYPE broken gauge\n\n# HELP fine Readable.\n# TYPE fine gauge\nfine 1\n');
  });

  it('serves the 0.0.4 text content type', () => {
    expect(new Registry().contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('prints labels in labelNames order, whatever the order they were given in', async () => {
    const registry = new Registry();
    const counter = registry.counter({ name: 'calls_total', help: 'h', labelNames: ['url', 'code', 'method'] });
    counter.inc({ method: 'post', code: '200', url: 'http://x' });
    counter.inc({ url: 'http://x', method: 'post', code: '200' });
    expect(await registry.metrics()).toContain('\ncalls_total{url="http://x",code="200",method="post"} 2\n');
  });

  it('escapes backslash, double quote and newline in label values, and backslash and newline in HELP', async () => {
    const registry = new Registry();
    registry.gauge({ name: 'g', help: 'a \\ b\nc "d"', labelNames: ['v'] }).set({ v: 'C:\\dir "x"\ny' }, 1);
    const text = await registry.metrics();
    expect(text).toContain('# HELP g a \\\\ b\\nc "d"\n');
    expect(text).toContain('g{v="C:\\\\dir \\"x\\"\\ny"} 1\n');
  });

  it('prints only HELP and TYPE for a metric without series', async () => {
    const registry = new Registry();
    registry.counter({ name: 'c_total', help: 'h', labelNames: ['x'] });
    registry.histogram({ name: 'h_seconds', help: 'h', labelNames: ['x'] });
    expect(await registry.metrics()).toBe('# HELP c_total h\n# TYPE c_total counter\n\n# HELP h_seconds h\n# TYPE h_seconds histogram\n');
  });

  it.each([
    [3, '3'], [0, '0'], [-2, '-2'], [0.1, '0.1'], [1e21, '1e+21'], [1.5e-7, '1.5e-7'],
    [Infinity, '+Inf'], [-Infinity, '-Inf'], [NaN, 'NaN'],
  ])('formats %s as %s', async (value, text) => {
    expect(formatValue(value)).toBe(text);
    const registry = new Registry();
    registry.gauge({ name: 'g', help: 'h' }).set({}, value);
    expect(await registry.metrics()).toContain(`\ng ${text}\n`);
  });

  it('refuses a second metric of the same name', () => {
    const registry = new Registry();
    registry.counter({ name: 'x', help: 'h' });
    expect(() => registry.gauge({ name: 'x', help: 'h' })).toThrow(/already registered/);
  });

  it('refuses a sample with a label missing', () => {
    const counter = new Registry().counter({ name: 'x', help: 'h', labelNames: ['a', 'b'] });
    expect(() => counter.inc({ a: '1' } as { a: string; b: string })).toThrow(/label b is missing/);
  });
});

describe('counter', () => {
  it('refuses to go down, or by NaN, and keeps its value', async () => {
    const registry = new Registry();
    const counter = registry.counter({ name: 'c_total', help: 'h' });
    counter.inc({}, 2);
    expect(() => counter.inc({}, -1)).toThrow(/cannot be increased by -1/);
    expect(() => counter.inc({}, NaN)).toThrow(/cannot be increased by NaN/);
    counter.inc({});
    expect(await registry.metrics()).toContain('\nc_total 3\n');
  });
});

describe('gauge', () => {
  it('sets, increases and decreases', async () => {
    const registry = new Registry();
    const gauge = registry.gauge({ name: 'g', help: 'h', labelNames: ['k'] });
    gauge.set({ k: 'a' }, 10);
    gauge.inc({ k: 'a' }, 5);
    gauge.dec({ k: 'a' });
    gauge.dec({ k: 'b' }, 2);
    expect(await registry.get('g')?.samples()).toEqual([
      { name: 'g', labels: { k: 'a' }, value: 14 },
      { name: 'g', labels: { k: 'b' }, value: -2 },
    ]);
  });

  it('runs its collect hook at every scrape, so reset() and set() there drop series gone from the source', async () => {
    const registry = new Registry();
    const depths = new Map([['a', 1], ['b', 2]]);
    registry.gauge({
      name: 'depth', help: 'h', labelNames: ['queue'],
      collect(gauge) {
        gauge.reset();
        for (const [queue, depth] of depths) gauge.set({ queue }, depth);
      },
    });
    expect(await registry.metrics()).toContain('depth{queue="a"} 1\ndepth{queue="b"} 2\n');
    depths.delete('a');
    depths.set('b', 5);
    const text = await registry.metrics();
    expect(text).not.toContain('queue="a"');
    expect(text).toContain('\ndepth{queue="b"} 5\n');
  });

  it('waits for an asynchronous collect hook', async () => {
    const registry = new Registry();
    registry.gauge({ name: 'g', help: 'h', collect: async (gauge) => gauge.set({}, await Promise.resolve(4)) });
    expect(await registry.metrics()).toContain('\ng 4\n');
  });
});

describe('histogram', () => {
  it("uses prom-client's default buckets", () => {
    expect(new Registry().histogram({ name: 'h', help: 'h' }).buckets).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    expect(DEFAULT_BUCKETS).toHaveLength(11);
  });

  it('prints cumulative buckets (a bound counts values equal to it), +Inf, sum and count, with le after the labels', async () => {
    const registry = new Registry();
    const histogram = registry.histogram({ name: 'd_seconds', help: 'h', labelNames: ['c'], buckets: [1, 0.1, 0.5] });
    for (const value of [0.05, 0.1, 0.3, 2]) histogram.observe({ c: 'x' }, value);
    expect(await registry.metrics()).toBe([
      '# HELP d_seconds h',
      '# TYPE d_seconds histogram',
      'd_seconds_bucket{c="x",le="0.1"} 2',
      'd_seconds_bucket{c="x",le="0.5"} 3',
      'd_seconds_bucket{c="x",le="1"} 3',
      'd_seconds_bucket{c="x",le="+Inf"} 4',
      'd_seconds_sum{c="x"} 2.45',
      'd_seconds_count{c="x"} 4',
      '',
    ].join('\n'));
  });

  it('keeps one set of buckets per label set, and prints default bounds as prom-client does', async () => {
    const registry = new Registry();
    const histogram = registry.histogram({ name: 'h', help: 'h', labelNames: ['k'] });
    histogram.observe({ k: 'a' }, 0.007);
    histogram.observe({ k: 'b' }, 20);
    const text = await registry.metrics();
    const les = [...text.matchAll(/h_bucket\{k="a",le="([^"]+)"\} (\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(les).toEqual(['0.005:0', '0.01:1', '0.025:1', '0.05:1', '0.1:1', '0.25:1', '0.5:1', '1:1', '2.5:1', '5:1', '10:1', '+Inf:1']);
    expect(text).toContain('h_bucket{k="b",le="10"} 0\nh_bucket{k="b",le="+Inf"} 1\nh_sum{k="b"} 20\nh_count{k="b"} 1\n');
  });
});

describe('names', () => {
  // Prometheus's rules: a name outside them makes the whole scrape fail to parse, so every metric of
  // the process would be lost; refused at registration instead, naming the metric.
  it.each(['', '1st_total', 'has-dash', 'has space', 'ümlaut', 'a.b'])('refuses the metric name %j', (name) => {
    expect(() => new Registry().counter({ name, help: 'h' })).toThrow(`metric name ${JSON.stringify(name)} is not valid`);
  });

  it.each(['jobs_total', '_private', 'ns:rule:rate5m', 'A9'])('accepts the metric name %j', (name) => {
    expect(new Registry().gauge({ name, help: 'h' }).name).toBe(name);
  });

  it.each(['', '1st', 'has-dash', 'a:b', '__reserved', 'ü'])('refuses the label name %j', (label) => {
    expect(() => new Registry().counter({ name: 'jobs_total', help: 'h', labelNames: [label] }))
      .toThrow(`jobs_total: label name ${JSON.stringify(label)} is not valid`);
  });

  it('accepts label names with one leading underscore', () => {
    expect(new Registry().counter({ name: 'jobs_total', help: 'h', labelNames: ['_shard', 'queue_2'] }).labelNames).toEqual(['_shard', 'queue_2']);
  });

  it('refuses a label named twice, and a histogram label named le', () => {
    expect(() => new Registry().counter({ name: 'jobs_total', help: 'h', labelNames: ['queue', 'queue'] })).toThrow('jobs_total: label name "queue" is given twice');
    expect(() => new Registry().histogram({ name: 'latency_seconds', help: 'h', labelNames: ['le'] })).toThrow('latency_seconds: label name "le" is reserved for histogram buckets');
  });

  it('leaves nothing registered when a name is refused', () => {
    const registry = new Registry();
    expect(() => registry.counter({ name: 'jobs_total', help: 'h', labelNames: ['bad-label'] })).toThrow();
    expect(registry.get('jobs_total')).toBeUndefined();
  });
});
