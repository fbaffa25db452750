import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/metrics.ts';
import { metricsRoutes, probeRoutes, serveUntil, type Routes } from './http-servers.ts';

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

/** Serves `routes` on a free loopback port; returns a GET of a path. */
async function serve(routes: Routes): Promise<(path: string, method?: string) => Promise<Response>> {
  const stop = new AbortController();
  stops.push(stop);
  const port = await serveUntil(routes, { host: '127.0.0.1', port: 0 }, stop.signal);
  return (path, method = 'GET') => fetch(`http://127.0.0.1:${port}${path}`, { method });
}

describe('probe server', () => {
  it('is healthy always and ready only when nothing is pending', async () => {
    let reason: string | undefined = 'store v1/configmaps not synced';
    const get = await serve(probeRoutes({ notReadyReason: () => reason }));
    expect((await get('/healthz')).status).toBe(200);
    const notReady = await get('/readyz');
    expect([notReady.status, await notReady.text()]).toEqual([503, 'not ready: store v1/configmaps not synced']);
    reason = undefined;
    const ready = await get('/readyz?verbose');
    expect([ready.status, await ready.text()]).toEqual([200, 'ok']);
  });

  it('answers 404 for another path and 405 for another method', async () => {
    const get = await serve(probeRoutes({ notReadyReason: () => undefined }));
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/healthz', 'POST')).status).toBe(405);
  });

  it('stops listening when the signal aborts', async () => {
    const stop = new AbortController();
    const port = await serveUntil(probeRoutes({ notReadyReason: () => undefined }), { host: '127.0.0.1', port: 0 }, stop.signal);
    stop.abort();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
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
    const response = await (await serve(metricsRoutes(metrics.registry)))('/metrics');
    expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
    const text = await response.text();
    expect(text).toContain('metacontroller_sync_requests_total{url="http://hook/sync",controller_name="web",controller_type="CompositeController",code="200",method="post"} 1');
    expect(text).toContain('metacontroller_sync_in_flight_requests{url="http://hook/sync",controller_name="web",controller_type="CompositeController"} 0');
    expect(text).toContain('metacontroller_sync_request_duration_histogram_seconds_count');
    expect(text).toContain('loom_reconcile_total{controller="web",controller_type="CompositeController",result="success"} 1');
    expect(text).toContain('loom_apply_total{controller="web",controller_type="CompositeController",action="create"} 1');
    expect(text).toContain('loom_queue_depth{controller="web",controller_type="CompositeController"} 7');
    metrics.close();
  });
});
