import { describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from './metrics.ts';

const controller = { controller: 'web', type: 'CompositeController' };

/** The `url` labels of every `metacontroller_<hook>_*` series, read back from the registry. */
async function urlLabels(metrics: Metrics, hook: 'sync' | 'finalize' | 'customize'): Promise<string[]> {
  const names = [`metacontroller_${hook}_requests_total`, `metacontroller_${hook}_in_flight_requests`, `metacontroller_${hook}_request_duration_histogram_seconds`];
  const labels = new Set<string>();
  for (const name of names) {
    const values = await metrics.registry.get(name)?.samples() ?? [];
    for (const { labels: { url } } of values) labels.add(String(url));
  }
  return [...labels];
}

function callHook(metrics: Metrics, hook: 'sync' | 'finalize' | 'customize', url: string): void {
  const observer = metrics.hookObserver({ hook, url, controller });
  observer.requestStarted();
  observer.requestFinished({ code: '200', durationSeconds: 0.01 });
}

describe('hook metrics url label', () => {
  it.each([
    ['userinfo', 'https://user:s3cret@hook.example.com/sync', 'https://hook.example.com/sync'],
    ['a query', 'http://hook.default:8080/sync?token=s3cret', 'http://hook.default:8080/sync'],
    ['a fragment', 'http://hook.default/sync#s3cret', 'http://hook.default/sync'],
    ['all three', 'https://user:s3cret@hook:8443/a/b?token=s3cret&x=1#frag', 'https://hook:8443/a/b'],
  ])('drops %s, on every series', async (_what, url, label) => {
    const metrics = createMetrics();
    callHook(metrics, 'sync', url);
    expect(await urlLabels(metrics, 'sync')).toEqual([label]);
    expect(await metrics.registry.metrics()).not.toContain('s3cret');
    metrics.close();
  });

  it.each([
    'http://hook.default:80/sync',
    'http://hook/sync',
    'https://hook.example.com',
    'jsonata:inline',
    'jsonata:configmap/default/hooks/sync.jsonata',
  ])('keeps %s as it is', async (url) => {
    const metrics = createMetrics();
    callHook(metrics, 'finalize', url);
    expect(await urlLabels(metrics, 'finalize')).toEqual([url]);
  });

  it('counts calls to one hook with different credentials as one series', async () => {
    const metrics = createMetrics();
    callHook(metrics, 'customize', 'http://hook/customize?token=a');
    callHook(metrics, 'customize', 'http://hook/customize?token=b');
    const values = await metrics.registry.get('metacontroller_customize_requests_total')?.samples();
    expect(values).toEqual([{ name: 'metacontroller_customize_requests_total', labels: { url: 'http://hook/customize', controller_name: 'web', controller_type: 'CompositeController', code: '200', method: 'post' }, value: 2 }]);
  });
});

describe('hook calls without an answer', () => {
  const finished = (metrics: Metrics, codes: string[]): void => {
    const observer = metrics.hookObserver({ hook: 'sync', url: 'http://hook/sync', controller });
    for (const code of codes) {
      observer.requestStarted();
      observer.requestFinished({ code, durationSeconds: 0.5 });
    }
  };
  const valuesOf = async (metrics: Metrics, name: string) => await metrics.registry.get(name)?.samples() ?? [];

  it('are counted in loom_hook_requests_total by result, so a dead or hanging hook shows on a dashboard', async () => {
    const metrics = createMetrics();
    finished(metrics, ['200', '500', 'error', 'error', 'timeout', 'aborted']);
    const byResult = Object.fromEntries((await valuesOf(metrics, 'loom_hook_requests_total')).map((v) => [String(v.labels.result), v.value]));
    expect(byResult).toEqual({ answered: 2, error: 2, timeout: 1, aborted: 1 });
    const labels = (await valuesOf(metrics, 'loom_hook_requests_total'))[0]?.labels;
    expect(labels).toMatchObject({ hook: 'sync', url: 'http://hook/sync', controller: 'web', controller_type: 'CompositeController' });
  });

  it('stay out of the Metacontroller series, which count only answered requests as Metacontroller does', async () => {
    const metrics = createMetrics();
    finished(metrics, ['200', 'error', 'timeout', 'aborted']);
    const codes = (await valuesOf(metrics, 'metacontroller_sync_requests_total')).map((v) => v.labels.code);
    expect(codes).toEqual(['200']);
    expect((await valuesOf(metrics, 'metacontroller_sync_in_flight_requests'))[0]?.value).toBe(0);
  });
});

describe('shard metrics', () => {
  it('report the buckets held, the handovers, and each controller\'s parents in them, read at scrape time', async () => {
    const metrics = createMetrics();
    let parents = 3;
    const untrack = metrics.trackShardParents(controller, () => parents);
    metrics.shards.held(4);
    metrics.shards.handover('acquired', 4);
    metrics.shards.handover('released', 1);
    parents = 7;
    const text = await metrics.registry.metrics();
    expect(text).toContain('loom_shard_buckets 4');
    expect(text).toContain('loom_shard_handovers_total{direction="acquired"} 4');
    expect(text).toContain('loom_shard_handovers_total{direction="released"} 1');
    expect(text).toContain('loom_shard_parents{controller="web",controller_type="CompositeController"} 7');
    untrack();
    expect(await metrics.registry.metrics()).not.toContain('loom_shard_parents{');
    metrics.close();
  });
});

describe('event metrics', () => {
  it('count the events not written, by why', async () => {
    const metrics = createMetrics();
    metrics.eventDropped('expired');
    metrics.eventDropped('expired');
    metrics.eventDropped('queue_full');
    const text = await metrics.registry.metrics();
    expect(text).toContain('loom_events_dropped_total{reason="expired"} 2');
    expect(text).toContain('loom_events_dropped_total{reason="queue_full"} 1');
    metrics.close();
  });
});

describe('circuit breaker metrics', () => {
  it('shows a breaker closed, then open with its transition, and counts the calls failed fast', async () => {
    const metrics = createMetrics();
    const observer = metrics.circuitObserver(controller, 'https://user:s3cret@hook/sync');
    const labels = 'controller="web",controller_type="CompositeController",url="https://hook/sync"';
    expect(await metrics.registry.metrics()).toContain(`loom_hook_circuit_open{${labels}} 0`);
    observer.changed('open');
    observer.refused();
    observer.refused();
    const text = await metrics.registry.metrics();
    expect(text).toContain(`loom_hook_circuit_open{${labels}} 1`);
    expect(text).toContain(`loom_hook_circuit_transitions_total{${labels},to="open"} 1`);
    expect(text).toContain(`loom_hook_circuit_rejected_total{${labels}} 2`);
    observer.changed('half-open');
    observer.changed('closed');
    expect(await metrics.registry.metrics()).toContain(`loom_hook_circuit_open{${labels}} 0`);
    expect(await metrics.registry.metrics()).not.toContain('s3cret');
    metrics.close();
  });

  it('drops the series of a removed breaker, and only those', async () => {
    const metrics = createMetrics();
    const gone = metrics.circuitObserver(controller, 'https://hook/sync');
    const kept = metrics.circuitObserver(controller, 'https://other/sync');
    gone.changed('open');
    gone.refused();
    kept.changed('open');
    gone.remove();
    const text = await metrics.registry.metrics();
    expect(text).not.toContain('url="https://hook/sync"');
    expect(text).toContain('loom_hook_circuit_open{controller="web",controller_type="CompositeController",url="https://other/sync"} 1');
    expect(text).toContain('loom_hook_circuit_transitions_total{controller="web",controller_type="CompositeController",url="https://other/sync",to="open"} 1');
    metrics.close();
  });
});
