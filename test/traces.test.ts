/**
 * OpenTelemetry traces end to end: `loom run`, in its own process, exports over OTLP/HTTP to a
 * receiver in this test process (configured only by `OTEL_*` variables, as in a Deployment); its
 * webhook is a kube-loom-sdk hook server here, with an OpenTelemetry SDK registered. One sync is one
 * trace: the reconcile span, a span per hook call and write, and the hook's own span inside loom's
 * hook-call span, joined through the `traceparent` header.
 */
import { createServer, type Server } from 'node:http';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/api/index.ts';
import { createHookServer, type HookServer } from '../src/sdk/index.ts';
import { createTestNamespace, eventually, testKubeConfig } from './support/cluster.ts';
import { testClients, type TestClients } from './support/loom.ts';
import { spawnLoom, type LoomProcess } from './support/loom-process.ts';
import { createParentCrd, TEST_GROUP, TEST_PARENT_KINDS } from './support/test-crd.ts';

const LABEL = 'traces';
const KIND = TEST_PARENT_KINDS.traced;

/** A span as OTLP/JSON carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }[];
}

/** Every span the OTLP receiver was sent. */
const received: OtlpSpan[] = [];
let receiver: Server;
let hookServer: HookServer;
const hookSpans = new InMemorySpanExporter();
let loom: LoomProcess | undefined;
let clients: TestClients;
let namespace: string;

/** An OTLP/HTTP trace receiver: collects the spans of every JSON `POST /v1/traces`. */
async function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
        for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) received.push(...(scope.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  if (!address || typeof address === 'string') throw new Error('the receiver has no port');
  return `http://127.0.0.1:${address.port}`;
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.boolValue ?? value?.intValue;
};

beforeAll(async () => {
  // The hook's process registers an OpenTelemetry SDK, as a traced hook service would.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: hookSpans })] }));

  clients = await testClients();
  namespace = await createTestNamespace(testKubeConfig(), LABEL);
  await createParentCrd(clients, KIND);
  hookServer = createHookServer({
    composite: {
      sync: ({ parent }) => ({ status: { synced: true }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${parent.metadata.name}-traced` } }] }),
    },
  });
  const hookUrl = await hookServer.listen({ host: '127.0.0.1', port: 0 });
  const endpoint = await startReceiver();
  await clients.apply({
    apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController',
    metadata: { name: 'traced-controller', labels: { 'loom-test': LABEL } },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: `${TEST_GROUP}/v1`, resource: KIND.plural },
      childResources: [{ apiVersion: 'v1', resource: 'configmaps' }],
      hooks: { sync: { webhook: { url: `${hookUrl}/sync` } } },
    },
  });
  loom = await spawnLoom(LABEL, [], 'src/cli/main.ts', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'loom-under-test' });
});

afterAll(async () => {
  await loom?.terminate();
  await hookServer?.close();
  receiver?.close();
});

describe('traces', () => {
  it('exports one trace per sync, with the hook\'s own span inside loom\'s hook call', async () => {
    const parent: KubeObject = { apiVersion: `${TEST_GROUP}/v1`, kind: KIND.kind, metadata: { name: 'first', namespace } };
    await clients.apply(parent);
    await eventually(() => clients.writer.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'first-traced' }), 'the child')
      .catch((err: unknown) => Promise.reject(new Error(`${String(err)}; loom's log:\n${loom?.logTail() ?? ''}`)));

    // The hook span and the sync span around it, which ends later (after the writes) and may come in a
    // later export batch: both waited for, as a loaded machine may export them seconds apart.
    const { hookCall, root } = await eventually(() => {
      const call = received.find((s) => s.name === 'hook sync');
      const around = call && received.find((s) => s.traceId === call.traceId && s.spanId === call.parentSpanId);
      return Promise.resolve(call && around ? { hookCall: call, root: around } : undefined);
    }, 'loom\'s hook span and the sync span around it to be exported');
    const inTrace = () => received.filter((s) => s.traceId === hookCall.traceId);
    expect(root.name).toBe('reconcile CompositeController');
    expect([attribute(root, 'loom.controller'), attribute(root, 'loom.parent')]).toEqual(['traced-controller', `${namespace}/first`]);
    expect(attribute(root, 'loom.decision')).toBe('sync');
    expect(attribute(hookCall, 'loom.hook_type')).toBe('webhook');
    await eventually(() => Promise.resolve(inTrace().some((s) => s.name === 'status Traced') || undefined), 'the status write in the same trace');
    const writes = inTrace().filter((s) => s.parentSpanId === root.spanId && s.name !== 'hook sync').map((s) => s.name);
    expect(writes).toEqual(expect.arrayContaining(['apply ConfigMap', 'status Traced']));
    expect(attribute(root, 'loom.result')).toBe('success');

    const hookSpan = await eventually(() => Promise.resolve(hookSpans.getFinishedSpans().find((s) => s.spanContext().traceId === hookCall.traceId)), 'the hook\'s own span to end');
    expect(hookSpan.name).toBe('composite sync hook');
    expect(hookSpan.parentSpanContext?.spanId).toBe(hookCall.spanId);
  });
});
