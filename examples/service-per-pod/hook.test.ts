import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { parsePorts, servicePerPodHook } from './hook.ts';

function statefulSet(annotations: Record<string, string>, replicas?: number) {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'shop', annotations },
    spec: replicas === undefined ? {} : { replicas },
  };
}

const service = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'shop' } });

const pod = (annotations: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'shop', annotations } });

describe('service-per-pod hooks', () => {
  const hook = testHook(servicePerPodHook({ logger: false }), { prefix: '/service-per-pod' });
  const podNameLabel = testHook(servicePerPodHook({ logger: false }), { prefix: '/pod-name-label' });

  it('asks for one Service per Pod ordinal, selecting the Pod by the annotated label key', async () => {
    const target = statefulSet({ 'service-per-pod-label': 'pod-name', 'service-per-pod-ports': '80:8080' }, 2);
    const { statusCode, body } = await hook.sync({ object: target, attachments: { 'Service.v1': {} } });
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      attachments: [0, 1].map((i) => ({
        apiVersion: 'v1', kind: 'Service',
        metadata: { name: `web-${i}`, labels: { 'app.kubernetes.io/managed-by': 'service-per-pod' } },
        spec: { selector: { 'pod-name': `web-${i}` }, ports: [{ name: 'port-80', port: 80, targetPort: 8080 }] },
      })),
    });
  });

  it("selects on the StatefulSet controller's own pod-name label when the label annotation is empty", async () => {
    const { body } = await hook.sync({ object: statefulSet({ 'service-per-pod-label': '', 'service-per-pod-ports': '80' }) });
    expect(body.attachments?.map((s) => s.spec)).toEqual([
      { selector: { 'statefulset.kubernetes.io/pod-name': 'web-0' }, ports: [{ name: 'port-80', port: 80, targetPort: 80 }] },
    ]);
  });

  it('asks for no Service for a StatefulSet scaled to 0', async () => {
    const { body } = await hook.sync({ object: statefulSet({ 'service-per-pod-label': 'pod-name', 'service-per-pod-ports': '80' }, 0) });
    expect(body).toEqual({ attachments: [] });
  });

  it.each([
    ['80:8080', [{ name: 'port-80', port: 80, targetPort: 8080 }]],
    ['80, 443:8443', [{ name: 'port-80', port: 80, targetPort: 80 }, { name: 'port-443', port: 443, targetPort: 8443 }]],
  ])('reads the ports %j', (annotation, ports) => {
    expect(parsePorts(annotation)).toEqual(ports);
  });

  it.each(['', 'http', '80:', '0:80', '80:70000', '1:2:3'])('refuses the ports %j', (annotation) => {
    expect(() => parsePorts(annotation)).toThrow(/service-per-pod-ports/);
  });

  it('fails the sync, naming the annotation, when the ports are invalid', async () => {
    const { statusCode, body } = await hook.sync({ object: statefulSet({ 'service-per-pod-label': 'pod-name', 'service-per-pod-ports': 'eighty' }) });
    expect(statusCode).toBe(500);
    expect(body.error).toMatch(/service-per-pod-ports: "eighty"/);
  });

  it.each([
    ['v2', { 'shop/web-0': service('web-0'), 'shop/web-1': service('web-1') }],
    ['v1', { 'web-0': service('web-0') }],
  ])('on finalize deletes the Services and waits while some are still there (%s keys)', async (_version, observed) => {
    const { body } = await hook.finalize({ object: statefulSet({}), attachments: { 'Service.v1': observed }, finalizing: true });
    expect(body).toEqual({ attachments: [], finalized: false });
  });

  it('on finalize reports finalized once no Service is left', async () => {
    const { body } = await hook.finalize({ object: statefulSet({}), attachments: { 'Service.v1': {} }, finalizing: true });
    expect(body).toEqual({ attachments: [], finalized: true });
  });

  it('labels a Pod with its own name under the annotated key', async () => {
    const { statusCode, body } = await podNameLabel.sync({ object: pod({ 'pod-name-label': 'pod-name' }) });
    expect(statusCode).toBe(200);
    expect(body).toEqual({ labels: { 'pod-name': 'web-1' } });
  });

  it('leaves a Pod whose annotation names no key alone', async () => {
    const { body } = await podNameLabel.sync({ object: pod({ 'pod-name-label': '' }) });
    expect(body).toEqual({});
  });
});
