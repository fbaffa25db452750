import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/metrics.ts';
import { metricsApp, probeApp } from './http-servers.ts';

describe('probe server', () => {
  it('is healthy always and ready only when nothing is pending', async () => {
    let reason: string | undefined = 'store v1/configmaps not synced';
    const app = probeApp({ notReadyReason: () => reason });
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    const notReady = await app.inject('/readyz');
    expect([notReady.statusCode, notReady.body]).toEqual([503, 'not ready: store v1/configmaps not synced']);
    reason = undefined;
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });
});

describe('metrics', () => {
  it("exposes Metacontroller's hook series and loom's own", async () => {
    const metrics = createMetrics();
    const controller = { controller: 'web', type: 'CompositeController' };
    const observer = metrics.hookObserver({ hook: 'sync', url: 'http://hook/sync', controller });
    observer.requestStarted();
    observer.requestFinished({ code: '200', durationSeconds: 0.01 });
    metrics.reconciled(controller, 'success', 0.02);
    metrics.applied(controller, 'create');
    metrics.trackQueue(controller, () => 7);
    const text = (await metricsApp(metrics.registry).inject('/metrics')).body;
    expect(text).toContain('metacontroller_sync_requests_total{url="http://hook/sync",controller_name="web",controller_type="CompositeController",code="200",method="post"} 1');
    expect(text).toContain('metacontroller_sync_in_flight_requests{url="http://hook/sync",controller_name="web",controller_type="CompositeController"} 0');
    expect(text).toContain('metacontroller_sync_request_duration_histogram_seconds_count');
    expect(text).toContain('loom_reconcile_total{controller="web",controller_type="CompositeController",result="success"} 1');
    expect(text).toContain('loom_apply_total{controller="web",controller_type="CompositeController",action="create"} 1');
    expect(text).toContain('loom_queue_depth{controller="web",controller_type="CompositeController"} 7');
  });
});
